/*
 * trace_reader.c - index a trace file and decode its event streams.
 *
 * trace_reader_open() walks the chunk headers once.  A chunk header that
 * does not check out (bad magic, impossible length) is reported with its
 * offset, and the walk resyncs at the next 8-byte-aligned valid header; a
 * region that was claimed but never written (a process killed at just the
 * wrong moment) is skipped the same way, a page at a time, and holes of a
 * sparse file without reading them.  Event windows are only indexed here;
 * trace_cursor_next() decodes them later, checking every byte.  What the
 * record lacks (windows lost or missing, corruption, truncation) is counted
 * in trace_reader.losses and described in trace_reader.problems.
 */
#include "trace_reader.h"
#include "../utils/array.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The index cannot go on without its arrays: out of memory ends the tool. */
#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if (!ARRAY_RESERVE(arr, n, cap, 16))                                               \
			abort();                                                                   \
	} while (0)

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

/* A loss that is not corruption (windows lost or missing, calls dropped);
 * the caller counts it in r->losses. */
static void __attribute__((format(printf, 3, 4)))
note_loss(struct trace_reader *r, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	add_problem(r, offset, fmt, ap);
	va_end(ap);
}

static char *copy_string(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* NUL-separated arguments joined with spaces. */
static char *join_arguments(const uint8_t *p, size_t len)
{
	while (len > 0 && p[len - 1] == '\0')
		len--;
	char *s = copy_string(p, len);
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

/* ---- images, threads ------------------------------------------------------ */

static uint64_t image_key_hash(uint32_t id)
{
	return (uint64_t)id * 0x9e3779b97f4a7c15ull >> 17;
}

static void image_hash_rebuild(struct trace_reader *r)
{
	free(r->image_hash);
	r->image_hash_size = r->image_hash_size ? r->image_hash_size * 2 : 64;
	r->image_hash = calloc(r->image_hash_size, sizeof(uint32_t));
	if (!r->image_hash)
		abort();
	for (size_t i = 0; i < r->nimages; i++) {
		size_t h = image_key_hash(r->images[i].id);
		while (r->image_hash[h & (r->image_hash_size - 1)])
			h++;
		r->image_hash[h & (r->image_hash_size - 1)] = (uint32_t)i + 1;
	}
}

/* The hash slot of image `id`: holds its index + 1, or 0 when it is new. */
static uint32_t *image_slot(const struct trace_reader *r, uint32_t id)
{
	size_t mask = r->image_hash_size - 1;
	for (size_t h = image_key_hash(id);; h++) {
		uint32_t *slot = &r->image_hash[h & mask];
		if (*slot == 0 || r->images[*slot - 1].id == id)
			return slot;
	}
}

static struct trace_image *image_get(struct trace_reader *r, uint32_t id, uint32_t pid)
{
	if (r->nimages * 2 >= r->image_hash_size)
		image_hash_rebuild(r);
	uint32_t *slot = image_slot(r, id);
	if (*slot)
		return &r->images[*slot - 1];
	GROW(r->images, r->nimages, r->cap_images);
	struct trace_image *im = &r->images[r->nimages++];
	*slot = (uint32_t)r->nimages;
	memset(im, 0, sizeof(*im));
	im->id = id;
	im->pid = pid;
	im->exe = copy_string((const uint8_t *)"", 0);
	im->command = copy_string((const uint8_t *)"", 0);
	return im;
}

const struct trace_image *trace_reader_image(const struct trace_reader *r, uint32_t id)
{
	if (r->nimages == 0)
		return NULL;
	uint32_t slot = *image_slot(r, id);
	return slot ? &r->images[slot - 1] : NULL;
}

static uint64_t thread_key_hash(uint32_t image, uint32_t tid)
{
	return ((uint64_t)image * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)tid * 0xc2b2ae3d27d4eb4full);
}

static void thread_hash_rebuild(struct trace_reader *r)
{
	free(r->thread_hash);
	r->thread_hash_size = r->thread_hash_size ? r->thread_hash_size * 2 : 256;
	r->thread_hash = calloc(r->thread_hash_size, sizeof(uint32_t));
	if (!r->thread_hash)
		abort();
	for (size_t i = 0; i < r->nthreads; i++) {
		size_t h = thread_key_hash(r->threads[i].image, r->threads[i].tid);
		while (r->thread_hash[h & (r->thread_hash_size - 1)])
			h++;
		r->thread_hash[h & (r->thread_hash_size - 1)] = (uint32_t)i + 1;
	}
}

static struct trace_thread *thread_get(struct trace_reader *r, uint32_t image, uint32_t pid,
				       uint32_t tid)
{
	if (r->nthreads * 2 >= r->thread_hash_size)
		thread_hash_rebuild(r);
	size_t mask = r->thread_hash_size - 1;
	for (size_t h = thread_key_hash(image, tid);; h++) {
		uint32_t slot = r->thread_hash[h & mask];
		if (slot == 0) {
			GROW(r->threads, r->nthreads, r->cap_threads);
			struct trace_thread *t = &r->threads[r->nthreads];
			memset(t, 0, sizeof(*t));
			t->image = image;
			t->pid = pid;
			t->tid = tid;
			t->index = (uint32_t)r->nthreads++;
			r->thread_hash[h & mask] = t->index + 1;
			image_get(r, image, pid);
			return t;
		}
		struct trace_thread *t = &r->threads[slot - 1];
		if (t->image == image && t->tid == tid)
			return t;
	}
}

/* ---- chunk payloads ------------------------------------------------------- */

static uint64_t chunk_time_ns(const struct trace_reader *r, const struct trace_chunk *c)
{
	return c->clock_ns > r->header.start_mono_ns ? c->clock_ns - r->header.start_mono_ns : 0;
}

static void read_process(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
			 const uint8_t *p, size_t len)
{
	struct trace_process_record rec;
	if (len < sizeof(rec))
		goto bad;
	memcpy(&rec, p, sizeof(rec));
	if ((uint64_t)rec.exe_len + rec.command_len > len - sizeof(rec))
		goto bad;
	if (rec.event == PROCESS_EXIT) {
		/* Image 0: written by the recorder, which knows only the pid. */
		struct trace_image *im = (struct trace_image *)trace_reader_image(r, c->image);
		for (size_t i = r->nimages; !c->image && i-- > 0;)
			if (r->images[i].pid == c->pid) {
				im = &r->images[i];
				break;
			}
		if (im) {
			im->has_exit = 1;
			im->exit_status = rec.status;
		}
		return;
	}
	struct trace_image *im = image_get(r, c->image, c->pid);
	const uint8_t *strings = p + sizeof(rec);
	im->pid = c->pid;
	im->ppid = rec.ppid;
	im->parent_image = rec.parent_image;
	im->how = rec.event;
	im->start_ns = chunk_time_ns(r, c);
	free(im->exe);
	free(im->command);
	im->exe = copy_string(strings, rec.exe_len);
	im->command = join_arguments(strings + rec.exe_len, rec.command_len);
	return;
bad:
	trace_reader_problem(r, off, "corrupt process record");
}

static void read_module(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
			const uint8_t *p, size_t len)
{
	struct trace_module_record rec;
	if (len < sizeof(rec))
		goto bad;
	memcpy(&rec, p, sizeof(rec));
	if ((uint64_t)rec.build_id_len + rec.path_len > len - sizeof(rec) || rec.low > rec.high)
		goto bad;
	struct trace_image *im = image_get(r, c->image, c->pid);
	uint64_t now = chunk_time_ns(r, c);
	if (rec.event == MODULE_UNLOAD) {
		for (size_t i = 0; i < im->nmodules; i++) {
			struct trace_module *m = &im->modules[i];
			if (m->low == rec.low && m->load_bias == rec.load_bias &&
			    m->unload_ns == UINT64_MAX)
				m->unload_ns = now;
		}
		return;
	}
	GROW(im->modules, im->nmodules, im->cap_modules);
	struct trace_module *m = &im->modules[im->nmodules++];
	memset(m, 0, sizeof(*m));
	m->build_id = (uint8_t *)copy_string(p + sizeof(rec), rec.build_id_len);
	m->build_id_len = rec.build_id_len;
	m->path = copy_string(p + sizeof(rec) + rec.build_id_len, rec.path_len);
	m->load_bias = rec.load_bias;
	m->low = rec.low;
	m->high = rec.high;
	m->load_ns = now;
	m->unload_ns = UINT64_MAX;
	return;
bad:
	trace_reader_problem(r, off, "corrupt module record");
}

static void read_thread(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
			const uint8_t *p, size_t len)
{
	struct trace_thread_record rec;
	if (len < sizeof(rec) || (memcpy(&rec, p, sizeof(rec)), rec.name_len > len - sizeof(rec))) {
		trace_reader_problem(r, off, "corrupt thread record");
		return;
	}
	struct trace_thread *t = thread_get(r, c->image, c->pid, c->tid);
	if (rec.event == THREAD_LOST_CALLS) {
		char *count = copy_string(p + sizeof(rec), rec.name_len);
		char *end;
		unsigned long long n = strtoull(count, &end, 10);
		if (*count && !*end) {
			r->losses.lost_calls += n < UINT64_MAX - r->losses.lost_calls
						    ? n
						    : UINT64_MAX - r->losses.lost_calls;
			note_loss(r, off, "thread %u: %llu calls could not be recorded", c->tid, n);
		} else {
			trace_reader_problem(r, off, "corrupt thread record");
		}
		free(count);
		return;
	}
	if (rec.name_len) { /* START, NAME, END: the latest name wins */
		free(t->name);
		t->name = copy_string(p + sizeof(rec), rec.name_len);
	}
}

static void read_crash(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		       const uint8_t *p, size_t len)
{
	struct trace_crash_record rec;
	if (len < sizeof(rec) ||
	    (memcpy(&rec, p, sizeof(rec)), rec.frames > (len - sizeof(rec)) / sizeof(uint64_t))) {
		trace_reader_problem(r, off, "corrupt crash record");
		return;
	}
	GROW(r->crashes, r->ncrashes, r->cap_crashes);
	struct trace_crash *k = &r->crashes[r->ncrashes++];
	k->image = c->image;
	k->pid = c->pid;
	k->tid = c->tid;
	k->signal = rec.signal;
	k->code = rec.code;
	k->fault_address = rec.fault_address;
	k->time_ns = chunk_time_ns(r, c);
	k->nframes = rec.frames;
	k->flags = rec.flags;
	k->frames = malloc(rec.frames * sizeof(uint64_t) + 1);
	memcpy(k->frames, p + sizeof(rec), rec.frames * sizeof(uint64_t));
}

static void index_window(struct trace_reader *r, uint64_t off, const struct trace_chunk *c)
{
	struct trace_thread *t = thread_get(r, c->image, c->pid, c->tid);
	GROW(t->windows, t->nwindows, t->cap_windows);
	t->windows[t->nwindows++] = (struct trace_window_ref){off, c->seq};
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
	       c.kind <= CHUNK_SKIP && c.used <= c.length - sizeof(c) &&
	       c.length <=
		   (c.kind == CHUNK_EVENTS || c.kind == CHUNK_SKIP ? TRACE_MAX_WINDOW : 1u << 20);
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
	if (all_zero)
		r->unwritten_bytes += off - start;
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

/* A window never closed (its writer was killed or is still running at the
 * end) is as long as its last non-zero byte. */
static size_t written_length(const struct trace_reader *r, uint64_t payload_off,
			     const struct trace_chunk *c)
{
	const uint8_t *payload = r->data + payload_off;
	uint64_t n = c->length - c->header_size;
	if (n > r->size - payload_off)
		n = r->size - payload_off;
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
		index_window(r, off, c);
		r->event_bytes += window_bytes(r, off);
		return;
	}
	if (c->used > avail) {
		trace_reader_problem(r, off, "truncated record");
		return;
	}
	switch (c->kind) {
	case CHUNK_PROCESS:
		read_process(r, off, c, payload, c->used);
		break;
	case CHUNK_MODULE:
		read_module(r, off, c, payload, c->used);
		break;
	case CHUNK_THREAD:
		read_thread(r, off, c, payload, c->used);
		break;
	case CHUNK_CRASH:
		read_crash(r, off, c, payload, c->used);
		break;
	}
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
			else if (seq != before + 1) {
				r->losses.missing_windows += seq - before - 1;
				note_loss(r, t->windows[w].offset,
					  "thread %u: %u event windows missing", t->tid,
					  seq - before - 1);
			}
		}
		if (!t->name)
			t->name = copy_string((const uint8_t *)"", 0);
	}
}

/* What the header says beyond the chunks: windows lost, or space claimed
 * that the file does not hold.  Failed claims also advance next_offset, so
 * with windows lost the difference says nothing about truncation. */
static void header_losses(struct trace_reader *r)
{
	uint64_t end = r->header.next_offset;
	if (r->header.lost_windows) {
		r->losses.lost_windows = r->header.lost_windows;
		note_loss(r, 0,
			  "%u event windows lost: the space for them could not be claimed (disk "
			  "full?), their events are missing",
			  r->header.lost_windows);
	} else if (end > r->size) {
		r->losses.truncated_bytes = end - r->size;
		note_loss(r, r->size,
			  "trace truncated: it ends %llu bytes short of the space claimed",
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
	r->command = join_arguments((const uint8_t *)r->header.command, r->header.command_len);
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

/* ---- decoding one thread's events ----------------------------------------- */

static void release_window(struct trace_cursor *c);

void trace_cursor_init(struct trace_cursor *c, struct trace_reader *r, const struct trace_thread *t)
{
	memset(c, 0, sizeof(*c));
	c->reader = r;
	c->thread = t;
}

void trace_cursor_fini(struct trace_cursor *c)
{
	release_window(c);
	c->end = NULL;
	free(c->dict);
	c->dict = NULL;
}

/* Gives back the pages of the window just read: the reader's memory stays
 * bounded however long the trace (they are still in the page cache). */
static void release_window(struct trace_cursor *c)
{
	if (!c->end)
		return;
	uintptr_t start = (uintptr_t)(c->reader->data + c->chunk_offset) & ~(uintptr_t)4095;
	uintptr_t end = (uintptr_t)c->end & ~(uintptr_t)4095;
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}

static int open_window(struct trace_cursor *c)
{
	struct trace_reader *r = c->reader;
	release_window(c);
	if (c->window >= c->thread->nwindows)
		return 0;
	const struct trace_window_ref *w = &c->thread->windows[c->window++];
	uint64_t off = w->offset;
	c->gap = c->window > 1 && w->seq != c->seq + 1;
	c->seq = w->seq;
	struct trace_chunk h;
	memcpy(&h, r->data + off, sizeof(h));
	const uint8_t *data = r->data + off + h.header_size;
	uint64_t limit = off + h.length < r->size ? off + h.length : r->size;
	c->p = data;
	c->end = h.used ? data + h.used : r->data + limit;
	if (c->end > r->data + limit) {
		trace_reader_problem(r, off, "event window truncated");
		c->end = r->data + limit;
		c->damaged = 1; /* noted now, said after the window */
	}
	c->chunk_offset = off;
	c->tick = h.base_tick;
	c->anchor_tick = h.clock_tick >> r->header.tick_shift;
	c->anchor_ns = (double)h.clock_ns - (double)r->header.start_mono_ns;
	c->ndict = 0;
	c->window_serial++;
	return 1;
}

static void window_corrupt(struct trace_cursor *c, const char *what)
{
	trace_reader_problem(
	    c->reader, c->chunk_offset + (uint64_t)(c->p - (c->reader->data + c->chunk_offset)),
	    "thread %u: %s; rest of the window skipped", c->thread->tid, what);
	c->p = c->end;
	c->damaged = 1;
}

/* Reads a varint; 0 when it runs past the end or is too long. */
static inline int read_varint(struct trace_cursor *c, uint64_t *out)
{
	const uint8_t *p = c->p;
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= c->end)
			return 0;
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			c->p = p;
			*out = v;
			return 1;
		}
	}
	return 0;
}

static inline uint64_t event_time(struct trace_cursor *c, uint64_t delta)
{
	c->tick += delta;
	double ns =
	    c->anchor_ns + (double)(int64_t)(c->tick - c->anchor_tick) * c->reader->ns_per_unit;
	/* Saturates: a huge or corrupt delta must not overflow (nor NaN pass). */
	uint64_t t = ns < (double)TRACE_TIME_MAX ? (ns > 0 ? (uint64_t)ns : 0) : TRACE_TIME_MAX;
	if (t < c->last_ns)
		t = c->last_ns; /* never backwards within a thread */
	c->last_ns = t;
	return t;
}

static int define_function(struct trace_cursor *c)
{
	uint64_t address;
	if (!read_varint(c, &address))
		return 0;
	if (!ARRAY_RESERVE(c->dict, c->ndict, c->cap_dict, 256))
		abort();
	c->dict[c->ndict++] = address;
	return 1;
}

/* Fills in the function of `fid`; 0 if the window has no such id. */
static inline int set_function(struct trace_cursor *c, struct trace_event *ev, uint64_t fid)
{
	if (fid >= c->ndict)
		return 0;
	ev->fid = (uint32_t)fid;
	ev->address = c->dict[fid];
	return 1;
}

static inline __attribute__((always_inline)) int enter_event(struct trace_cursor *c,
							     struct trace_event *ev, uint8_t b)
{
	uint64_t fid = b >> 2, high = 0, delta;
	if ((b & 3) == 3 && !read_varint(c, &high))
		return 0;
	if (!read_varint(c, &delta) || !set_function(c, ev, fid | high << 6))
		return 0;
	ev->type = TRACE_ENTER;
	ev->innermost = 0;
	ev->time_ns = event_time(c, delta);
	return 1;
}

static inline __attribute__((always_inline)) int exit_event(struct trace_cursor *c,
							    struct trace_event *ev, uint8_t b)
{
	uint64_t delta = b >> 2, more = 0;
	if (delta == EV_SHORT_DELTA_MAX && !read_varint(c, &more))
		return 0;
	ev->type = TRACE_EXIT;
	ev->innermost = 1;
	ev->fid = 0;
	ev->address = 0;
	ev->time_ns = event_time(c, delta + more);
	return 1;
}

/* The values of `kind` that follow the event just read, if any.  0 when
 * they are cut short. */
static inline int attached_values(struct trace_cursor *c, struct trace_event *ev, unsigned kind)
{
	uint64_t len;
	ev->values = NULL;
	ev->values_len = 0;
	if (__builtin_expect(c->p >= c->end || *c->p != (uint8_t)(kind << 2), 1))
		return 1;
	c->p++;
	if (!read_varint(c, &len) || len > (uint64_t)(c->end - c->p))
		return 0;
	ev->values = c->p;
	ev->values_len = (uint32_t)len;
	c->p += len;
	return 1;
}

static int extended_event(struct trace_cursor *c, struct trace_event *ev, unsigned kind)
{
	uint64_t delta, len;
	switch (kind) {
	case EV_DEFINE:
		return define_function(c) ? 0 : -1;
	case EV_PAUSE:
		if (!read_varint(c, &delta))
			return -1;
		ev->type = TRACE_PAUSE;
		ev->time_ns = event_time(c, delta);
		ev->lost = 0;
		return 1;
	case EV_EXIT_AT:
		if (!read_varint(c, &len) || !read_varint(c, &delta) || !set_function(c, ev, len))
			return -1;
		ev->type = TRACE_EXIT;
		ev->innermost = 0;
		ev->time_ns = event_time(c, delta);
		return 1;
	case EV_UNWIND:
		if (!read_varint(c, &delta) || !read_varint(c, &len) || len > UINT32_MAX)
			return -1;
		ev->type = TRACE_UNWIND;
		ev->time_ns = event_time(c, delta);
		ev->stay = (uint32_t)len;
		return 1;
	case EV_ARGS:
	case EV_RETVAL: /* after no enter or exit (the call's was cut off): skipped */
		if (!read_varint(c, &len) || len > (uint64_t)(c->end - c->p))
			return -1;
		c->p += len;
		return 0;
	case EV_MARK:
		if (!read_varint(c, &delta) || !read_varint(c, &len) ||
		    len > (uint64_t)(c->end - c->p))
			return -1;
		ev->type = TRACE_MARK;
		ev->time_ns = event_time(c, delta);
		ev->mark = (const char *)c->p;
		ev->mark_len = (uint32_t)len;
		c->p += len;
		return 1;
	}
	return -1;
}

static int only_zeros_follow(const struct trace_cursor *c)
{
	for (const uint8_t *q = c->p; q < c->end && q < c->p + 2 * EV_MAX_BYTES; q++)
		if (*q)
			return 0;
	return 1;
}

int trace_cursor_next(struct trace_cursor *c, struct trace_event *ev)
{
	for (;;) {
		if (c->p >= c->end) {
			/* Where events are missing (the rest of a corrupt
			 * window, windows before the next), the open calls end. */
			if (c->damaged)
				c->damaged = 0;
			else if (!open_window(c))
				return 0;
			else if (!c->gap)
				continue;
			ev->type = TRACE_PAUSE;
			ev->time_ns = c->last_ns;
			ev->lost = 1;
			return 1;
		}
		uint8_t b = *c->p;
		if (b == 0) { /* the rest of the window was never written */
			c->p = c->end;
			continue;
		}
		c->p++;
		if (b & 1) {
			if (!enter_event(c, ev, b) || !attached_values(c, ev, EV_ARGS))
				goto corrupt;
		} else if ((b & 3) == 2) {
			if (!exit_event(c, ev, b) || !attached_values(c, ev, EV_RETVAL))
				goto corrupt;
		} else {
			int rc = extended_event(c, ev, b >> 2);
			if (rc < 0)
				goto corrupt;
			if (rc == 0)
				continue;
			ev->values = NULL;
			ev->values_len = 0;
			if (ev->type == TRACE_EXIT && !attached_values(c, ev, EV_RETVAL))
				goto corrupt;
		}
		c->events++;
		return 1;
	corrupt:
		/* The last event of a window cut short by kill -9 may be
		 * incomplete (only zeros follow it); anything else is corruption. */
		if (!only_zeros_follow(c))
			window_corrupt(c, "corrupt event");
		c->p = c->end;
	}
}
