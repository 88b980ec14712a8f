/*
 * readable.c - reading the program's memory behind a pointer (a string
 * argument, a struct passed by reference) without ever faulting it.
 *
 * The readable mappings of /proc/self/maps are kept in a table, read again
 * when an address is in none of them (the program mapped something new)
 * and when a module goes away.  A read of an address the table knows is a
 * plain copy, under a guard: if the mapping has gone since (unmapped by
 * the program), the fault lands in the runtime's SIGSEGV/SIGBUS handler
 * (crash.c), which jumps back here, and the read fails.  When that handler
 * is not the one installed (the program set its own), reads go through
 * process_vm_readv, which cannot fault but costs a system call.  An
 * address the table lacks even when read again is asked of the kernel
 * (mincore); one in no mapping is not read at all.
 *
 * Nothing here calls the C library on the way of a read: its functions may
 * be patched, and a call of one would be recorded as the program's.
 */
#include "../runtime.h"
#include "../../arch/arch.h"
#include "../../utils/stack_overflow.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

struct range {
	uint64_t start, end;
};

#define MAX_RANGES (1u << 16)
static struct range *ranges; /* sorted, readable */
static volatile uint32_t nranges;
static volatile uint32_t table_version; /* odd while the table changes */
static volatile int table_lock;
static uint32_t table_epoch;	 /* runtime_module_epoch it was read at */
static volatile int guard_works; /* crash.c's handler catches SIGSEGV and SIGBUS */

static long raw_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	return arch_syscall6(nr, a, b, c, d, e, f);
}

/* One line of /proc/self/maps: a readable mapping goes into the table. */
static void add_line(const char *line, void *ctx)
{
	uint32_t *n = ctx;
	struct maps_range r;
	if (!maps_parse_range(line, &r) || r.perms[0] != 'r' || *n == MAX_RANGES)
		return;
	if (*n && ranges[*n - 1].end == r.start)
		ranges[*n - 1].end = r.end; /* adjacent: one range */
	else
		ranges[(*n)++] = (struct range){r.start, r.end};
}

int runtime_maps_each(void (*each_line)(const char *line, void *ctx), void *ctx)
{
	int fd = (int)raw_syscall6(SYS_openat, AT_FDCWD, (long)"/proc/self/maps",
				   O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return -1;
	char buf[1024], line[256]; /* small: the crash handler may run on a small signal stack */
	uint32_t used = 0;
	long got;
	while ((got = raw_syscall6(SYS_read, fd, (long)buf, sizeof(buf), 0, 0, 0)) > 0)
		for (long i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (used < sizeof(line) - 1)
					line[used++] = buf[i];
				continue;
			}
			line[used] = '\0';
			each_line(line, ctx);
			used = 0;
		}
	raw_syscall6(SYS_close, fd, 0, 0, 0, 0, 0);
	return 0;
}

static void read_table(void)
{
	uint32_t n = 0;
	if (runtime_maps_each(add_line, &n) == 0)
		nranges = n;
}

static void refresh(void)
{
	if (__atomic_exchange_n(&table_lock, 1, __ATOMIC_ACQUIRE))
		return; /* another thread reads it: this read fails, not waits */
	if (!ranges) {
		void *m = (void *)raw_syscall6(SYS_mmap, 0, MAX_RANGES * sizeof(struct range),
					       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
					       -1, 0);
		if ((unsigned long)m > -4096ul) {
			__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
			return;
		}
		ranges = m;
	}
	__atomic_add_fetch(&table_version, 1, __ATOMIC_ACQ_REL);
	table_epoch = RUNTIME_LOAD(runtime_module_epoch);
	read_table();
	guard_works = runtime_crash_guard && runtime_crash_guard();
	__atomic_add_fetch(&table_version, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&table_lock, 0, __ATOMIC_RELEASE);
}

/* How many bytes from `address` on (at most len) the table says are
 * readable; 0 when none, or when the table changes meanwhile. */
static size_t readable_run(uint64_t address, size_t len)
{
	uint32_t v = __atomic_load_n(&table_version, __ATOMIC_ACQUIRE);
	if (v & 1 || !ranges)
		return 0;
	uint32_t lo = 0, hi = nranges;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (ranges[mid].end <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t n = 0;
	if (lo < nranges && ranges[lo].start <= address)
		n = ranges[lo].end - address < len ? ranges[lo].end - address : len;
	return __atomic_load_n(&table_version, __ATOMIC_ACQUIRE) == v ? n : 0;
}

/* setjmp and longjmp of our own (the C library's may be patched): the
 * callee-saved registers, the stack pointer and where to go on
 * (arch/<cpu>/probe_jump.c). */
int probe_save(uint64_t jump[ARCH_PROBE_WORDS])
    __attribute__((returns_twice, visibility("hidden")));
void probe_jump(uint64_t jump[ARCH_PROBE_WORDS]) __attribute__((noreturn, visibility("hidden")));

/* Copies under the fault guard; 0 when the memory faulted. */
static __attribute__((noinline)) int guarded_copy(uint8_t *to, const volatile uint8_t *from,
						  size_t n)
{
	struct thread_state *t = &runtime_thread;
	uint64_t jump[ARCH_PROBE_WORDS];
	if (probe_save(jump)) {
		t->probe = NULL;
		return 0;
	}
	t->probe_lo = (uint64_t)from;
	t->probe_hi = (uint64_t)from + n;
	t->probe = jump;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->probe = NULL;
	return 1;
}

void runtime_probe_fault(uint64_t fault_address)
{
	struct thread_state *t = &runtime_thread;
	uint64_t *jump = t->probe;
	if (jump && fault_address >= t->probe_lo && fault_address < t->probe_hi)
		probe_jump(jump);
}

static size_t read_by_syscall(uint64_t address, void *out, size_t len)
{
	struct iovec local = {out, len}, remote = {(void *)address, len};
	long n = raw_syscall6(SYS_process_vm_readv, (long)runtime_session.pid, (long)&local, 1,
			      (long)&remote, 1, 0);
	return n > 0 ? (size_t)n : 0;
}

/* The bytes from `address` to the end of its page (at most len) when the
 * kernel says the page is mapped, else 0: mincore fails with ENOMEM on a
 * hole.  For a mapping the table missed: made since, while reads miss so
 * often that the table is seldom read again, or left out of the maps
 * qemu-user shows (a guest's page merged with one of qemu's own). */
static size_t mapped_run(uint64_t address, size_t len)
{
	static const uint64_t sizes[] = {4096, 16384, 65536};
	static uint64_t page; /* the kernel's page size, once learnt */
	unsigned char resident[4];
	for (unsigned i = 0; i < 3; i++) {
		uint64_t size = page ? page : sizes[i];
		long rc = raw_syscall6(SYS_mincore, (long)(address & ~(size - 1)), 1,
				       (long)resident, 0, 0, 0);
		if (rc == -EINVAL && !page)
			continue; /* not aligned to the page size: a bigger one */
		if (rc != 0)
			return 0;
		page = size;
		uint64_t room = (address & ~(size - 1)) + size - address;
		return room < len ? (size_t)room : len;
	}
	return 0;
}

size_t runtime_read_memory(uint64_t address, void *out, size_t len)
{
	static volatile uint32_t misses;
	if (!ranges || table_epoch != RUNTIME_LOAD(runtime_module_epoch))
		refresh();
	size_t n = readable_run(address, len);
	/* Mapped since?  Looked at again on a miss, but seldom once misses
	 * are common (a program passing garbage pointers). */
	uint32_t miss = n == 0 ? __atomic_add_fetch(&misses, 1, __ATOMIC_RELAXED) : 0;
	if (n == 0 && (miss < 64 || miss % 1024 == 0)) {
		refresh();
		n = readable_run(address, len);
	}
	if (n == 0)
		n = mapped_run(address, len);
	if (n == 0)
		return 0;
	if (!guard_works)
		return read_by_syscall(address, out, n);
	return guarded_copy(out, (const volatile uint8_t *)address, n) ? n : 0;
}
