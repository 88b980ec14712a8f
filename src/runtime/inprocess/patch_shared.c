/*
 * patch_shared.c - the code of a module marked at start, shared by the
 * processes of a session.  Marking every entry writes into each code page
 * of the module, and the kernel copies each page a process writes (193
 * pages in every bash a script starts), then fork copies their tables.
 * Instead, while patch_lazy.c writes a module's marks and patches the
 * functions that ran before, the writes are held back here, and their
 * digest names the code they make.  When the cache folder has that code
 * (code_cache.c), it is mapped over the module's: pages of one file,
 * shared by every process, none copied.  Else the writes are made, and the
 * code is saved there for the next process, when the module ran in an
 * earlier one (a module met for the first time may never run again).
 *
 * The same writes make the same code only if the trampolines lie at the
 * same distance from the module in every process: those made here go
 * into a region of their own, pinned at a fixed distance below the
 * module's code (or above), and patch_lazy.c patches in the order of the
 * addresses.  A process where that room is taken writes its code itself.
 * Only with one thread: code is not mapped over while another may run it.
 *
 * Nothing here calls malloc: it runs inside the traced process.
 */
#include "../runtime.h"
#include "../../format/trace_format.h"
#include "../../patch/code_cache.h"
#include "../../patch/patch.h"
#include "patch_shared.h"

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#define HELD_BYTES 16		 /* a mark, the bytes it took, a jump */
#define HELD_HEAD 5		 /* a held write's offset in the span, and its length */
#define PIN_DISTANCE (16u << 20) /* from the code to its trampolines' region */

/* The writes held, one after another: the offset of each in the span (4
 * bytes), its length (1 byte; 0 for a mark, whose bytes are arch_mark),
 * its bytes.  Marks are most of them: 5 bytes each. */
static struct {
	struct code_cache_span span;
	const char *dir;
	uint8_t *log;
	size_t used, room, mapped_bytes;
	int spoiled; /* a write could not be held: the code is this process's own */
	int ran;     /* the module ran before: its code is saved */
} held;

/* ---- which code ---------------------------------------------------------- */

struct segment_query {
	uint64_t bias, lo, hi; /* in: the module, its functions' span */
	uint64_t end;	       /* out: the end of the executable segment holding it */
	int textrel;	       /* out: the module relocates its code */
};

static int text_relocated(const struct dl_phdr_info *info)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
			continue;
		const ElfW(Dyn) *d =
		    (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
		for (; d->d_tag != DT_NULL; d++)
			if (d->d_tag == DT_TEXTREL ||
			    (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
				return 1;
	}
	return 0;
}

static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct segment_query *q = data;
	if (info->dlpi_addr != q->bias)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		uint64_t start = q->bias + p->p_vaddr, end = start + p->p_memsz;
		if (p->p_type == PT_LOAD && (p->p_flags & PF_X) && q->lo >= start && q->hi <= end)
			q->end = end;
	}
	q->textrel = text_relocated(info);
	return 1;
}

/* The pages of the module's executable segment from `lo` to `hi`; 0, or
 * -1 when they are not in one such segment, or the module writes its own
 * code (text relocations: each process's code differs). */
static int code_span(uint64_t bias, uint64_t lo, uint64_t hi, struct code_cache_span *s)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct segment_query q = {.bias = bias, .lo = lo, .hi = hi + PATCH_JUMP_LEN};
	if (dl_iterate_phdr(find_segment, &q) != 1 || !q.end || q.textrel)
		return -1;
	s->address = lo & ~(page - 1);
	s->length = ((q.hi + page - 1) & ~(page - 1)) - s->address;
	/* The segment's last page holds whatever the file has after it; a
	 * held write's offset takes 4 bytes. */
	return s->address + s->length <= ((q.end + page - 1) & ~(page - 1)) &&
		       s->length <= UINT32_MAX
		   ? 0
		   : -1;
}

/* The trampolines' region pinned below the code, else above it. */
static int pin_region(const struct code_cache_span *s)
{
	return (s->address > PIN_DISTANCE &&
		patch_code_pin_region(s->address - PIN_DISTANCE) == 0) ||
		       patch_code_pin_region(s->address + s->length + PIN_DISTANCE) == 0
		   ? 0
		   : -1;
}

/* ---- the writes ------------------------------------------------------------ */

static uint64_t mix(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* A write's share of the digest: a sum of them, since the marks come in
 * the order of their table, which the addresses' hashes set.  `at`: its
 * address less the module's bias. */
static uint64_t write_digest(uint64_t at, const uint8_t *bytes, size_t len)
{
	uint64_t h = mix(at) ^ len;
	for (size_t i = 0; i < len; i++)
		h = mix(h + bytes[i] + 1);
	return h;
}

static int make_writes(void);

/* The room a write takes in the log (a mark's bytes are not kept). */
static size_t log_size(size_t len, int mark)
{
	return HELD_HEAD + (mark ? 0 : len);
}

/* Puts a write at `w` in the log; its size there. */
static size_t log_put(uint8_t *w, uint32_t offset, const uint8_t *bytes, size_t len, int mark)
{
	memcpy(w, &offset, sizeof(offset));
	w[4] = mark ? 0 : (uint8_t)len;
	if (!mark)
		memcpy(w + HELD_HEAD, bytes, len);
	return log_size(len, mark);
}

/* Reads the write at `r` in the log; its size there. */
static size_t log_get(const uint8_t *r, uint32_t *offset, const uint8_t **bytes, size_t *len)
{
	memcpy(offset, r, sizeof(*offset));
	size_t kept = r[4];
	*bytes = kept ? r + HELD_HEAD : arch_mark;
	*len = kept ? kept : ARCH_MARK_LEN;
	return HELD_HEAD + kept;
}

/* The code sink (patch_code_hold_writes): every write into the span.  One
 * that cannot be held (no room) ends the holding: the writes held so far
 * are made, in their order, and this one and the later ones as they come;
 * the code is then this process's own. */
static int hold(uint64_t address, const uint8_t *bytes, size_t len)
{
	const struct code_cache_span *s = &held.span;
	if (address < s->address || address + len > s->address + s->length)
		return 0;
	if (len == 0)
		return 1; /* nothing to write */
	int mark = len == ARCH_MARK_LEN && memcmp(bytes, arch_mark, ARCH_MARK_LEN) == 0;
	size_t need = log_size(len, mark);
	if (len > HELD_BYTES || held.used + need > held.room) {
		patch_code_hold_writes(NULL);
		held.spoiled = 1;
		if (make_writes() < 0)
			runtime_debug("%s: some writes into its code failed", s->path);
		held.used = 0;
		return 0;
	}
	held.used +=
	    log_put(held.log + held.used, (uint32_t)(address - s->address), bytes, len, mark);
	held.span.digest += write_digest(address - s->bias, bytes, len);
	return 1;
}

/* Makes the writes held, in their order: the span opened once
 * (patch_write_back then stores directly), else each on its own. */
static int make_writes(void)
{
	const struct code_cache_span *s = &held.span;
	if (!held.used)
		return 0;
	int opened = patch_code_writable(s->address, s->address + s->length - 1, 1) == 0;
	int rc = 0;
	for (size_t at = 0; at < held.used;) {
		uint32_t offset;
		const uint8_t *bytes;
		size_t len;
		at += log_get(held.log + at, &offset, &bytes, &len);
		if (patch_write_back(s->address + offset, bytes, len) < 0)
			rc = -1;
	}
	if (opened)
		patch_code_writable(s->address, s->address + s->length - 1, 0);
	return rc;
}

/* ---- begin, end -------------------------------------------------------------- */

int runtime_patch_shared_begin(const char *path, int with_eh_frame, uint64_t bias, uint64_t lo,
			       uint64_t hi, size_t writes, int ran)
{
	const char *dir = runtime_getenv("CALLTRACE_FUNCTION_CACHE");
	if (!path || !*path || !dir || !*dir || !__libc_single_threaded || hi < lo || !writes)
		return 0;
	struct code_cache_span s = {.path = path, .with_eh_frame = with_eh_frame, .bias = bias};
	if (code_span(bias, lo, hi, &s) < 0)
		return 0;
	size_t room = writes * (HELD_HEAD + HELD_BYTES); /* the pages used are touched */
	size_t bytes = (room + 4095) & ~(size_t)4095;
	void *log = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (log == MAP_FAILED)
		return 0;
	if (pin_region(&s) < 0) {
		munmap(log, bytes);
		return 0;
	}
	s.digest = mix(s.address - bias) + s.length;
	const struct trace_file_header *h = runtime_session.header;
	s.session = h ? mix(h->start_real_ns) ^ h->start_tick : 0;
	held.span = s;
	held.dir = dir;
	held.log = log;
	held.used = 0;
	held.room = room;
	held.mapped_bytes = bytes;
	held.spoiled = 0;
	held.ran = ran;
	patch_code_hold_writes(hold);
	return 1;
}

int runtime_patch_shared_holding(void)
{
	return held.log && !held.spoiled;
}

int runtime_patch_shared_end(void)
{
	patch_code_hold_writes(NULL);
	if (patch_code_unpin_region() < 0)
		held.spoiled = 1; /* trampolines went elsewhere: code of its own */
	int rc = 0;
	const struct code_cache_span *s = &held.span;
	enum code_cache_found found = held.spoiled ? CODE_KEEP : code_cache_map(held.dir, s);
	if (found == CODE_MAPPED) {
		runtime_debug("%s: its code (%lu pages) mapped from the cache", s->path,
			      (unsigned long)(s->length / 4096));
	} else {
		rc = make_writes();
		if (rc == 0 && found == CODE_NONE && held.ran && code_cache_write(held.dir, s) == 0)
			runtime_debug("%s: its code saved in the cache", s->path);
	}
	munmap(held.log, held.mapped_bytes);
	held.log = NULL;
	return rc;
}
