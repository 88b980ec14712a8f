/*
 * code_memory.c - memory for trampolines, within reach of the entry jump
 * of the functions that jump to them (ARCH_JUMP_REACH: 2 GiB on x86-64,
 * 128 MiB on aarch64), and the writing of that jump.
 *
 * Regions are mapped read-write-execute while trampolines are written into
 * them and sealed read-execute afterwards (opened again, never without
 * execute, when more trampolines go in); they are never unmapped, since a
 * stack may still return through one.  An attach's detach writes the
 * original bytes back over the jumps.
 *
 * A jump is written in two pieces, its first byte last, unless the process
 * has one thread (__libc_single_threaded).
 *
 * Code that is read-execute is written through /proc/self/mem where the
 * kernel lets it and the architecture allows (ARCH_CODE_THROUGH_PROC_MEM:
 * one system call, no change of protection, which would split the mapping
 * twice); else the page is opened for the write.
 */
#include "patch.h"
#include "../arch/arch.h"
#include "../utils/big_table.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <unistd.h>

#define REGION_SIZE (1u << 20)
#define MAX_REGIONS 256
#define REACH ARCH_JUMP_REACH

static struct patch_code_region regions[MAX_REGIONS] BIG_TABLE;
static uint32_t nregions;

/* The code pages patch_code_writable opened (none: open_lo > open_hi):
 * what lands there is stored directly, with no system call. */
static uint64_t open_lo = UINT64_MAX, open_hi;
/* patch_code_open_all: trampolines go into opened regions by memcpy. */
static int reopen_sealed;

static int within_reach(uint64_t a, uint64_t b, size_t len)
{
	uint64_t lo = a < b ? a : b, hi = a < b ? b + len : a + len;
	return hi - lo < REACH - (1u << 20);
}

static struct patch_code_region *map_region_near(uint64_t near)
{
	if (nregions == MAX_REGIONS)
		return NULL;
	/* Below the module first (the heap is often above the executable),
	 * then above, at growing distances. */
	for (int i = 0; i < 64; i++) {
		int64_t distance = (int64_t)(i / 2 + 1) * (int64_t)(REACH >> 7);
		uint64_t hint =
		    (near + (uint64_t)(i % 2 ? distance : -distance)) & ~(uint64_t)0xfffff;
		void *m = mmap((void *)hint, REGION_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (m == MAP_FAILED)
			continue;
		if (!within_reach((uint64_t)m, near, REGION_SIZE)) {
			munmap(m, REGION_SIZE);
			continue;
		}
		struct patch_code_region *r = &regions[nregions++];
		r->base = m;
		r->used = 0;
		r->sealed = 0;
		return r;
	}
	return NULL;
}

/* `len` bytes (rounded to 16) from region `r`, when it has room within
 * reach of `near`; a sealed region is opened again when `open_sealed`. */
static uint8_t *give(struct patch_code_region *r, uint64_t near, size_t len, int open_sealed)
{
	if (r->used + len > REGION_SIZE || !within_reach((uint64_t)r->base, near, REGION_SIZE))
		return NULL;
	if (open_sealed && r->sealed) {
		if (mprotect(r->base, REGION_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
			return NULL;
		r->sealed = 0;
	}
	uint8_t *p = r->base + r->used;
	r->used += len;
	return p;
}

/* The region patch_code_pin_region mapped, given first while pinned;
 * whether it had room for every trampoline meanwhile. */
static struct patch_code_region *pinned;
static int pinned_overflowed;

/* `len` bytes (rounded to 16) within reach of `near`, from a region that
 * has room or a new one; a sealed region is opened again when `open_sealed`
 * (the caller writes into it directly); patch_code_take's caller writes
 * through patch_code_fill, which needs no writable mapping. */
static uint8_t *take_room(uint64_t near, size_t len, int open_sealed)
{
	len = (len + 15) & ~(size_t)15;
	uint8_t *p = pinned ? give(pinned, near, len, open_sealed) : NULL;
	pinned_overflowed |= pinned && !p;
	for (unsigned i = 0; !p && i < nregions; i++)
		p = give(&regions[i], near, len, open_sealed);
	if (p)
		return p;
	struct patch_code_region *r = map_region_near(near);
	if (!r)
		return NULL;
	r->used = len;
	return r->base;
}

int patch_code_pin_region(uint64_t at)
{
	if (nregions == MAX_REGIONS)
		return -1;
	void *m = mmap((void *)at, REGION_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	if ((uint64_t)m != at) { /* a kernel that takes the address as a hint */
		munmap(m, REGION_SIZE);
		return -1;
	}
	pinned = &regions[nregions++];
	*pinned = (struct patch_code_region){.base = m};
	pinned_overflowed = 0;
	return 0;
}

int patch_code_unpin_region(void)
{
	int whole = pinned && !pinned_overflowed;
	pinned = NULL;
	return whole ? 0 : -1;
}

uint8_t *patch_code_alloc(uint64_t near, size_t len)
{
	return take_room(near, len, 1);
}

uint8_t *patch_code_take(uint64_t near, size_t len)
{
	return take_room(near, len, reopen_sealed);
}

void patch_code_open_all(int on)
{
	reopen_sealed = on;
}

/* Whether [address, address + len) lies in the pages opened for writing. */
static int in_open_span(uint64_t address, size_t len)
{
	return address >= open_lo && address + len - 1 <= open_hi;
}

/* ---- writing code ------------------------------------------------------- */

/* Writes the `n` pieces of code (address, bytes, len) in order through
 * /proc/self/mem; 0, or -1 when the kernel does not let it.  The
 * descriptor is checked before each use: the program may have closed it
 * and given its number to a file of its own; a fork child opens its own
 * (the one it inherits is its parent's memory). */
struct code_piece {
	uint64_t address;
	const void *bytes;
	size_t len;
};

/* System calls made here directly: the C library's functions may be the
 * very code being rewritten (--module libc). */
static long raw_syscall(long n, long a, long b, long c, long d)
{
	return arch_syscall6(n, a, b, c, d, 0, 0);
}

static int mem_fd = -1;
static long mem_pid;
static dev_t mem_dev;
static ino_t mem_ino;

/* Within a batch (patch_code_batch), the descriptor is checked once: the
 * writes of one first call or of one module's marks come from one thread
 * under the caller's lock, with no fork between them. */
static int in_batch, batch_checked;

void patch_code_batch(int on)
{
	in_batch = on;
	batch_checked = 0;
}

static int mem_open(void)
{
	if (mem_fd >= 0 && in_batch && batch_checked)
		return mem_fd;
	long self = raw_syscall(SYS_getpid, 0, 0, 0, 0);
	struct stat st;
	if (mem_fd >= 0 && mem_pid == self &&
	    raw_syscall(SYS_fstat, mem_fd, (long)&st, 0, 0) == 0 && st.st_dev == mem_dev &&
	    st.st_ino == mem_ino) {
		batch_checked = in_batch;
		return mem_fd;
	}
	long fd = raw_syscall(SYS_openat, AT_FDCWD, (long)"/proc/self/mem", O_RDWR | O_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	long high = raw_syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, 512, 0); /* out of the way */
	if (high >= 0) {
		raw_syscall(SYS_close, fd, 0, 0, 0);
		fd = high;
	}
	if (raw_syscall(SYS_fstat, fd, (long)&st, 0, 0) < 0) {
		raw_syscall(SYS_close, fd, 0, 0, 0);
		return -1;
	}
	mem_fd = (int)fd;
	mem_pid = self;
	mem_dev = st.st_dev;
	mem_ino = st.st_ino;
	batch_checked = in_batch;
	return mem_fd;
}

static int poke(const struct code_piece *pieces, int n)
{
	int fd = ARCH_CODE_THROUGH_PROC_MEM ? mem_open() : -1;
	if (fd < 0)
		return -1;
	for (int i = 0; i < n; i++)
		if (raw_syscall(SYS_pwrite64, fd, (long)pieces[i].bytes, (long)pieces[i].len,
				(long)pieces[i].address) != (long)pieces[i].len)
			return -1;
	return 0;
}

static int write_code(uint64_t address, const uint8_t *bytes, size_t len);

int patch_code_fill(uint8_t *at, const uint8_t *bytes, size_t len)
{
	for (uint32_t i = 0; i < nregions; i++) {
		struct patch_code_region *r = &regions[i];
		if (at >= r->base && at < r->base + REGION_SIZE && !r->sealed) {
			memcpy(at, bytes, len);
			return 0;
		}
	}
	return write_code((uint64_t)at, bytes, len);
}

uint8_t *patch_code_block_at(uint64_t address, size_t len)
{
	for (uint32_t i = 0; i < nregions; i++) {
		uint64_t block = patch_code_region_block(&regions[i], address, len);
		if (block)
			return (uint8_t *)block;
	}
	return NULL;
}

const struct patch_code_region *patch_code_regions(const uint32_t **count)
{
	*count = &nregions;
	return regions;
}

void patch_code_seal(void)
{
	for (unsigned i = 0; i < nregions; i++) {
		if (regions[i].sealed)
			continue;
		mprotect(regions[i].base, REGION_SIZE, PROT_READ | PROT_EXEC);
		regions[i].sealed = 1;
	}
}

/* Makes the pages from `first` (page-aligned) over `span` bytes
 * read-execute again after a write, but for those of the open span, which
 * stay writable. */
static int seal_pages(uint64_t first, size_t span)
{
	int rc = mprotect((void *)first, span, PROT_READ | PROT_EXEC);
	uint64_t last = first + span - 1;
	if (first <= open_hi && last >= open_lo) {
		uint64_t lo = first > open_lo ? first : open_lo,
			 hi = last < open_hi ? last : open_hi;
		mprotect((void *)lo, hi + 1 - lo, PROT_READ | PROT_WRITE | PROT_EXEC);
	}
	return rc;
}

/* ---- writes held back ------------------------------------------------------ */

static patch_code_sink held_by;

void patch_code_hold_writes(patch_code_sink sink)
{
	held_by = sink;
}

/* Whether the write goes to the sink instead of the code. */
static int held(uint64_t address, const uint8_t *bytes, size_t len)
{
	return held_by && held_by(address, bytes, len);
}

/* Copies `len` bytes to `address` in code, the page opened for writing
 * meanwhile and read-execute again after. */
static int write_code(uint64_t address, const uint8_t *bytes, size_t len)
{
	struct code_piece piece = {address, bytes, len};
	if (held(address, bytes, len))
		return 0;
	if (in_open_span(address, len)) {
		memcpy((void *)address, bytes, len);
		__builtin___clear_cache((char *)address, (char *)address + len);
		return 0;
	}
	if (poke(&piece, 1) == 0)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t first = address & ~(uint64_t)(page - 1);
	size_t span = (size_t)(address + len - first);
	if (mprotect((void *)first, span, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return -1;
	memcpy((void *)address, bytes, len);
	__builtin___clear_cache((char *)address, (char *)address + len);
	return seal_pages(first, span);
}

int patch_write_back(uint64_t address, const uint8_t *bytes, size_t len)
{
	if (len > 64) {
		errno = EINVAL;
		return -1;
	}
	return write_code(address, bytes, len);
}

/* Opens the code pages from `first` to `last` (inclusive) for writing, or
 * makes them read-execute again: the marks of a whole module are written
 * with two system calls. */
int patch_code_writable(uint64_t first, uint64_t last, int writable)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t from = first & ~(uint64_t)(page - 1);
	/* Whole pages: a jump is longer than a mark, and the last function's
	 * runs past `last`; a store that fell outside would open and then
	 * seal its page, in the midst of the span. */
	size_t span = (size_t)(((last + (uint64_t)page) & ~(uint64_t)(page - 1)) - from);
	int rc = mprotect((void *)from, span, PROT_READ | PROT_EXEC | (writable ? PROT_WRITE : 0));
	open_lo = rc == 0 && writable ? from : UINT64_MAX;
	open_hi = rc == 0 && writable ? from + span - 1 : 0;
#ifdef MADV_POPULATE_WRITE
	/* The pages made private in one go, not one write fault each (a
	 * kernel older than 5.14 says EINVAL: the writes fault then). */
	if (rc == 0 && writable)
		madvise((void *)from, span, MADV_POPULATE_WRITE);
#endif
	return rc;
}

/* The jump is written so that a thread running the entry meanwhile meets
 * either the mark or the whole jump: its first byte last (x86-64), or in
 * one store (aarch64: arch_store_jump). */
int patch_write_jump(uint64_t address, uint64_t target)
{
	uint8_t jump[PATCH_JUMP_LEN];
	if (arch_encode_jump(address, target, jump) < 0) {
		errno = ERANGE;
		return -1;
	}
	struct code_piece pieces[2] = {{address + 1, jump + 1, PATCH_JUMP_LEN - 1},
				       {address, jump, 1}};
	/* With one thread (a vfork's parent waits) nothing runs the entry
	 * meanwhile: the jump goes in one write. */
	struct code_piece whole = {address, jump, PATCH_JUMP_LEN};
	if (held(address, jump, PATCH_JUMP_LEN))
		return 0;
	if (in_open_span(address, PATCH_JUMP_LEN)) {
		arch_store_jump((volatile uint8_t *)address, jump);
		return 0;
	}
	if (__libc_single_threaded ? poke(&whole, 1) == 0 : poke(pieces, 2) == 0)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t first = address & ~(uint64_t)(page - 1);
	size_t span = (size_t)(address + PATCH_JUMP_LEN - first);
	if (mprotect((void *)first, span, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return -1;
	arch_store_jump((volatile uint8_t *)address, jump);
	return seal_pages(first, span);
}
