/*
 * trace_reader.c - index a trace file: the walk over its chunks.
 *
 * trace_reader_open() walks the chunk headers once.  A chunk header that
 * does not check out (bad magic, impossible length) is reported with its
 * offset, and the walk resyncs at the next 8-byte-aligned valid header; a
 * region that was claimed but never written (a process killed at just the
 * wrong moment) is skipped the same way, a page at a time, and holes of a
 * sparse file without reading them.  Event windows are only indexed here
 * (records: trace_records.c; kernel chunks: trace_kernel_index.c);
 * trace_cursor_next() decodes them later, checking every byte.  What the
 * record lacks (windows lost or missing, corruption, truncation) is counted
 * in trace_reader.losses and described in trace_reader.problems.
 */
#include "trace_reader_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Keeps a problem; 1 when it is new (not already found by another walk). */
static int add_problem(struct trace_reader *r, uint64_t offset, const char *fmt, va_list ap)
{
	struct trace_problem found;
	vsnprintf(found.message, sizeof(found.message), fmt, ap);
	found.offset = offset;
	if (r->nproblems >= 1000)
		return 1; /* a hopeless file: the first thousand say enough */
	for (size_t i = 0; i < r->nproblems; i++) /* a second walk finds them again */
		if (r->problems[i].offset == offset &&
		    strcmp(r->problems[i].message, found.message) == 0)
			return 0;
	GROW(r->problems, r->nproblems, r->cap_problems);
	r->problems[r->nproblems++] = found;
	return 1;
}

void trace_reader_problem(struct trace_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (add_problem(r, offset, fmt, ap))
		r->losses.corrupt++;
	va_end(ap);
}

void trace_reader_note_loss(struct trace_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_problem(r, offset, fmt, ap);
	va_end(ap);
}

/* ---- the walk over chunk headers ------------------------------------------ */

static int chunk_header_ok(const struct trace_reader *r, uint64_t off)
{
	if (off + sizeof(struct trace_chunk) > r->size)
		return 0;
	struct trace_chunk c;
	memcpy(&c, r->data + off, sizeof(c));
	return c.magic == TRACE_CHUNK_MAGIC && c.header_size == sizeof(c) &&
	       c.length >= sizeof(c) && c.length % 8 == 0 && c.kind >= CHUNK_EVENTS &&
	       c.kind <= CHUNK_KERNEL && c.used <= c.length - sizeof(c) &&
	       c.length <= (c.kind == CHUNK_EVENTS || c.kind == CHUNK_SKIP || c.kind == CHUNK_KERNEL
				? TRACE_MAX_WINDOW
				: 1u << 20);
}

/* Gives back the pages of [from, to) of the mapping (page-aligned inward). */
static void release_range(const struct trace_reader *r, uint64_t from, uint64_t to)
{
	uintptr_t start = ((uintptr_t)r->data + from + 4095) & ~(uintptr_t)4095;
	uintptr_t end = ((uintptr_t)r->data + to) & ~(uintptr_t)4095;
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}

/* Reading maps the pages it touches: every 4 MiB, those behind `off` go. */
static void release_behind(const struct trace_reader *r, uint64_t *released, uint64_t off)
{
	if (off - *released > (4u << 20)) {
		release_range(r, *released, off);
		*released = off;
	}
}

/* The first offset at or after `off` that may hold data: the holes of a
 * sparse file (a crashed or full-disk recording leaves them) are skipped
 * without reading them. */
static uint64_t next_data(const struct trace_reader *r, uint64_t off)
{
	if (r->fd < 0 || off >= r->size)
		return off;
	off_t found = lseek(r->fd, (off_t)off, SEEK_DATA);
	if (found < 0)
		return errno == ENXIO ? r->size : off; /* ENXIO: a hole to the end */
	return (uint64_t)found > off ? (uint64_t)found & ~(uint64_t)7 : off;
}

/* Whether the page at `off` (4096-aligned) is all zeros, up to the end. */
static int zero_page(const struct trace_reader *r, uint64_t off)
{
	size_t n = r->size - off < 4096 ? (size_t)(r->size - off) : 4096;
	const uint8_t *p = r->data + off;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t word;
		memcpy(&word, p + i, 8);
		if (word)
			return 0;
	}
	return n % 8 == 0;
}

/* Skips to the next valid chunk header; returns its offset or r->size.
 * Zeros (space claimed but never written) go a page at a time, holes at
 * once; memory stays bounded however long the region. */
static uint64_t resync(struct trace_reader *r, uint64_t off, uint64_t *released)
{
	uint64_t start = off;
	int all_zero = 1;
	while (off + sizeof(struct trace_chunk) <= r->size) {
		if (off % 4096 == 0) { /* no header starts in a hole or a zero page */
			release_behind(r, released, off);
			uint64_t data = next_data(r, off);
			if (data == off && zero_page(r, off))
				data = off + 4096;
			if (data > off) {
				off = data;
				continue;
			}
		}
		if (chunk_header_ok(r, off))
			break;
		uint64_t word;
		memcpy(&word, r->data + off, 8);
		all_zero &= word == 0;
		off += 8;
	}
	if (off + sizeof(struct trace_chunk) > r->size)
		off = r->size;
	/* Zeros to the end of the file past the space claimed are space
	 * reserved ahead of the claims (trace_session.c), never claimed. */
	uint64_t claimed =
	    off == r->size && r->header.next_offset < off ? r->header.next_offset : off;
	if (all_zero)
		r->unwritten_bytes += claimed > start ? claimed - start : 0;
	else
		trace_reader_problem(r, start, "corrupt data, %llu bytes skipped",
				     (unsigned long long)(off - start));
	return off;
}

struct clock_span {
	uint64_t lo_tick, lo_ns, hi_tick, hi_ns;
};

static void note_clock(struct clock_span *s, const struct trace_chunk *c)
{
	if (!c->clock_ns)
		return;
	if (!s->lo_ns || c->clock_ns < s->lo_ns) {
		s->lo_ns = c->clock_ns;
		s->lo_tick = c->clock_tick;
	}
	if (c->clock_ns > s->hi_ns) {
		s->hi_ns = c->clock_ns;
		s->hi_tick = c->clock_tick;
	}
}

/* The end of the last stretch of data (not a hole) in [from, to). */
static uint64_t data_end(const struct trace_reader *r, uint64_t from, uint64_t to)
{
	uint64_t end = from;
	while (from < to && r->fd >= 0) {
		off_t data = lseek(r->fd, (off_t)from, SEEK_DATA);
		if (data < 0 || (uint64_t)data >= to)
			return data < 0 && errno != ENXIO ? to : end;
		off_t hole = lseek(r->fd, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole >= to)
			return to;
		end = from = (uint64_t)hole;
	}
	return r->fd >= 0 ? end : to;
}

/* Windows up to this long are read back from their end; a longer one
 * first asks the file where its data ends, so that a hole is not read.
 * Asking costs a walk of the file's extents (26 ms in a 2 GB trace): not
 * for each of the small windows that short processes leave open. */
#define WINDOW_READ_BACK (256u << 10)

/* A window never closed (its writer was killed, is still running at the
 * end, or was a process's main thread, which records until its last
 * destructor) is as long as its last non-zero byte. */
static size_t written_length(const struct trace_reader *r, uint64_t payload_off,
			     const struct trace_chunk *c)
{
	const uint8_t *payload = r->data + payload_off;
	uint64_t n = c->length - c->header_size;
	if (n > r->size - payload_off)
		n = r->size - payload_off;
	if (n > WINDOW_READ_BACK)
		n = data_end(r, payload_off, payload_off + n) - payload_off;
	while (n >= 8) {
		uint64_t word;
		memcpy(&word, payload + n - 8, 8);
		if (word)
			break;
		n -= 8;
	}
	while (n > 0 && payload[n - 1] == 0)
		n--;
	return (size_t)n;
}

/* The payload bytes of the event window at `off`. */
static size_t window_bytes(const struct trace_reader *r, uint64_t off)
{
	struct trace_chunk c;
	memcpy(&c, r->data + off, sizeof(c));
	return c.used ? c.used : written_length(r, off + c.header_size, &c);
}

static void read_chunk(struct trace_reader *r, uint64_t off, const struct trace_chunk *c)
{
	const uint8_t *payload = r->data + off + c->header_size;
	size_t avail = r->size - off - c->header_size;
	if (c->kind == CHUNK_SKIP)
		return;
	if (c->kind == CHUNK_EVENTS) {
		trace_index_window(r, off, c);
		trace_image_seen(r, c);
		r->event_bytes += window_bytes(r, off);
		return;
	}
	if (c->used > avail) {
		trace_reader_problem(r, off, "truncated record");
		return;
	}
	switch (c->kind) {
	case CHUNK_PROCESS:
		trace_read_process(r, off, c, payload, c->used);
		break;
	case CHUNK_MODULE:
		trace_read_module(r, off, c, payload, c->used);
		break;
	case CHUNK_THREAD:
		trace_read_thread(r, off, c, payload, c->used);
		break;
	case CHUNK_CRASH:
		trace_read_crash(r, off, c, payload, c->used);
		break;
	case CHUNK_KERNEL:
		trace_kernel_note(r, off, c);
		break;
	}
	trace_image_seen(r, c);
}

static int compare_windows(const void *a, const void *b)
{
	const struct trace_window_ref *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether two windows of a thread (sorted by seq) are copies of one: a
 * writer killed while it copied a full window out leaves it twice, both
 * whole (see trace_writer.c).  A thread id used twice in one process (after
 * the ids wrapped around) has other windows with the same numbers: they
 * began at other times. */
static int same_window(const struct trace_reader *r, const struct trace_window_ref *a,
		       const struct trace_window_ref *b)
{
	struct trace_chunk x, y;
	if (a->seq != b->seq)
		return 0;
	memcpy(&x, r->data + a->offset, sizeof(x));
	memcpy(&y, r->data + b->offset, sizeof(y));
	return x.base_tick == y.base_tick && x.clock_tick == y.clock_tick;
}

static void drop_second_copies(struct trace_reader *r, struct trace_thread *t)
{
	size_t kept = 0;
	for (size_t w = 0; w < t->nwindows; w++) {
		if (kept > 0 && same_window(r, &t->windows[kept - 1], &t->windows[w])) {
			r->event_bytes -= window_bytes(r, t->windows[w].offset);
			continue;
		}
		t->windows[kept++] = t->windows[w];
	}
	t->nwindows = kept;
}

static void finish_threads(struct trace_reader *r)
{
	for (size_t i = 0; i < r->nthreads; i++) {
		struct trace_thread *t = &r->threads[i];
		if (t->nwindows > 1)
			qsort(t->windows, t->nwindows, sizeof(*t->windows), compare_windows);
		drop_second_copies(r, t);
		for (size_t w = 1; w < t->nwindows; w++) {
			uint32_t seq = t->windows[w].seq, before = t->windows[w - 1].seq;
			if (seq == before)
				trace_reader_problem(r, t->windows[w].offset,
						     "thread %u: two event windows numbered %u",
						     t->tid, seq);
			else if (seq != before + 1 && r->header.ring_slots) {
				r->ring_gaps += seq - before - 1;
			} else if (seq != before + 1) {
				r->losses.missing_windows += seq - before - 1;
				trace_reader_note_loss(r, t->windows[w].offset,
						       "thread %u: %u event windows missing",
						       t->tid, seq - before - 1);
			}
		}
		if (!t->name)
			t->name = trace_reader_copy_string((const uint8_t *)"", 0);
	}
}

/* What the header says beyond the chunks: windows lost, or space claimed
 * that the file does not hold.  Failed claims also advance next_offset, so
 * with windows lost the difference says nothing about truncation. */
static void header_losses(struct trace_reader *r)
{
	uint64_t end = r->header.next_offset;
	if (r->header.kernel_lost_events) {
		r->losses.lost_kernel_events = r->header.kernel_lost_events;
		trace_reader_note_loss(r, 0,
				       "%llu kernel events lost: the kernel's ring buffers had no "
				       "room for them (system calls, off-CPU intervals)",
				       (unsigned long long)r->header.kernel_lost_events);
	}
	if (r->header.lost_windows) {
		r->losses.lost_windows = r->header.lost_windows;
		trace_reader_note_loss(
		    r, 0,
		    "%u event windows lost: the space for them could not be claimed (disk "
		    "full, or ulimit -f?), their events are missing",
		    r->header.lost_windows);
	} else if (end > r->size) {
		r->losses.truncated_bytes = end - r->size;
		trace_reader_note_loss(
		    r, r->size, "trace truncated: it ends %llu bytes short of the space claimed",
		    (unsigned long long)(end - r->size));
	}
}

/* The clock's rate from the chunks' anchors (the header's when they span
 * too little time). */
static void set_clock(struct trace_reader *r, const struct clock_span *span)
{
	double hz = (double)r->header.tick_hz;
	if (span->hi_ns - span->lo_ns >= 20000000 && span->hi_tick > span->lo_tick)
		hz = (double)(span->hi_tick - span->lo_tick) * 1e9 /
		     (double)(span->hi_ns - span->lo_ns);
	r->ns_per_tick = 1e9 / hz;
	r->ns_per_unit = r->ns_per_tick * (double)(1u << r->header.tick_shift);
}

static void index_chunks(struct trace_reader *r)
{
	struct clock_span span = {0, 0, 0, 0};
	uint64_t off = TRACE_HEADER_SIZE, released = 0;
	while (off + sizeof(struct trace_chunk) <= r->size) {
		release_behind(r, &released, off);
		if (!chunk_header_ok(r, off)) {
			off = resync(r, off, &released);
			continue;
		}
		struct trace_chunk c;
		memcpy(&c, r->data + off, sizeof(c));
		if (off + c.length > r->size && c.kind != CHUNK_EVENTS)
			trace_reader_problem(r, off, "trace ends inside a record");
		else
			read_chunk(r, off, &c);
		note_clock(&span, &c);
		off += c.length;
	}
	header_losses(r);
	set_clock(r, &span);
	trace_kernel_assign(r);
	finish_threads(r);
}

/* ---- open and close ----------------------------------------------------- */

static int check_header(struct trace_reader *r, char *err, size_t errlen)
{
	size_t magic_len = sizeof(TRACE_FILE_MAGIC);
	if (r->size < magic_len || memcmp(r->data, TRACE_FILE_MAGIC, magic_len) != 0) {
		snprintf(err, errlen, "%s: not a calltrace trace file", r->path);
		return -1;
	}
	if (r->size < TRACE_HEADER_SIZE) {
		snprintf(err, errlen, "%s: trace truncated inside its header (%zu of %u bytes)",
			 r->path, r->size, TRACE_HEADER_SIZE);
		return -1;
	}
	memcpy(&r->header, r->data, sizeof(r->header));
	if (r->header.version != TRACE_FILE_VERSION) {
		snprintf(err, errlen, "%s: trace format version %u, this calltrace reads %u",
			 r->path, r->header.version, TRACE_FILE_VERSION);
		return -1;
	}
	if (r->header.header_size != TRACE_HEADER_SIZE || r->header.tick_hz == 0 ||
	    r->header.tick_shift > 16 || r->header.command_len > sizeof(r->header.command)) {
		snprintf(err, errlen, "%s: corrupt trace header", r->path);
		return -1;
	}
	r->command =
	    trace_reader_join_arguments((const uint8_t *)r->header.command, r->header.command_len);
	r->header.filters[sizeof(r->header.filters) - 1] = '\0'; /* a string, however damaged */
	return 0;
}

/* Why `st` cannot be a trace, or NULL when it can (a regular file). */
static const char *not_a_file(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return NULL;
	if (S_ISDIR(st->st_mode))
		return "is a directory, not a trace file";
	if (S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode))
		return "is a pipe or socket; a trace must be a regular file";
	return "is a device; a trace must be a regular file";
}

/* Opens `path` for reading, only if it is a regular file: a FIFO would
 * block the open, a device may do anything.  The fd, or -1 after err. */
static int open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
	const char *why;
	if (stat(path, st) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if ((why = not_a_file(st))) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || (why = not_a_file(st))) { /* replaced meanwhile */
		snprintf(err, errlen, "%s: %s", path, why ? why : strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct trace_reader *trace_reader_open(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd = open_regular(path, &st, err, errlen);
	if (fd < 0)
		return NULL;
	struct trace_reader *r = calloc(1, sizeof(*r));
	if (!r)
		abort();
	r->path = path;
	r->fd = fd;
	r->size = (size_t)st.st_size;
	if (r->size == 0) {
		snprintf(err, errlen, "%s: empty file, not a calltrace trace", path);
		goto fail;
	}
	void *map = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	r->data = map;
	madvise(map, r->size, MADV_SEQUENTIAL);
	if (check_header(r, err, errlen) < 0)
		goto fail;
	index_chunks(r);
	close(fd);
	r->fd = -1;
	release_range(r, 0, r->size); /* cursors map what they read, window by window */
	return r;
fail:
	trace_reader_close(r);
	return NULL;
}

void trace_reader_close(struct trace_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nimages; i++) {
		struct trace_image *im = &r->images[i];
		for (size_t m = 0; m < im->nmodules; m++) {
			free(im->modules[m].path);
			free(im->modules[m].build_id);
		}
		free(im->modules);
		free(im->exe);
		free(im->command);
	}
	for (size_t i = 0; i < r->nthreads; i++) {
		free(r->threads[i].windows);
		free(r->threads[i].kernel_windows);
		free(r->threads[i].name);
	}
	for (size_t i = 0; i < r->ncrashes; i++)
		free(r->crashes[i].frames);
	if (r->data)
		munmap((void *)r->data, r->size);
	free(r->images);
	free(r->threads);
	free(r->problems);
	free(r->crashes);
	free(r->thread_hash);
	free(r->image_hash);
	free(r->kernel_pending);
	free(r->command);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

const struct trace_module *trace_reader_find_module(const struct trace_reader *r, uint32_t image,
						    uint64_t address, uint64_t ns)
{
	const struct trace_image *im = trace_reader_image(r, image);
	if (!im)
		return NULL;
	const struct trace_module *later = NULL, *any = NULL;
	for (size_t i = im->nmodules; i-- > 0;) {
		const struct trace_module *m = &im->modules[i];
		if (address < m->low || address >= m->high)
			continue;
		if (m->load_ns <= ns && ns <= m->unload_ns)
			return m;
		any = m;
		/* Recorded only after its first call (a dlopen'd library is
		 * noticed when one of its functions first runs). */
		if (m->load_ns > ns && (!later || m->load_ns < later->load_ns))
			later = m;
	}
	return later ? later : any;
}
