/*
 * trace_cursor.c - decode one source of a thread's events (its windows, or
 * its kernel chunks): every byte checked, times converted to ns, and where
 * events are missing (windows before this one, the rest of a corrupt one)
 * a PAUSE with `lost` set.  trace_merge.c makes the thread's one stream of
 * its sources.
 */
#include "trace_cursor_internal.h"
#include "../utils/array.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

void trace_substream_init(struct trace_substream *s, struct trace_reader *r,
			  const struct trace_window_ref *windows, size_t n, uint32_t tid,
			  int kernel)
{
	memset(s, 0, sizeof(*s));
	s->reader = r;
	s->tid = tid;
	s->windows = windows;
	s->nwindows = n;
	s->kernel = kernel;
}

/* Gives back the pages of the window just read: the reader's memory stays
 * bounded however long the trace (they are still in the page cache). */
static void release_window(struct trace_substream *s)
{
	if (!s->end)
		return;
	uintptr_t start = (uintptr_t)(s->reader->data + s->chunk_offset) & ~(uintptr_t)4095;
	uintptr_t end = (uintptr_t)s->end & ~(uintptr_t)4095;
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}

void trace_substream_fini(struct trace_substream *s)
{
	release_window(s);
	s->end = NULL;
	free(s->dict);
	s->dict = NULL;
}

static void report(struct trace_substream *s, uint64_t offset, const char *what)
{
	if (s->quiet)
		s->corrupt++;
	else if (s->kernel)
		trace_reader_problem(s->reader, offset,
				     "thread %u: %s in a kernel chunk; rest of the chunk skipped",
				     s->tid, what);
	else
		trace_reader_problem(s->reader, offset, "thread %u: %s; rest of the window skipped",
				     s->tid, what);
}

/* 1 when the windows before `w` are missing; 2 when `w` begins a new run
 * of kernel chunks (numbered from 0 again at an exec): the calls open
 * before it end there, and none is missing. */
static int gap_before(const struct trace_substream *s, const struct trace_window_ref *w)
{
	if (s->window <= 1 || w->seq == s->seq + 1)
		return 0;
	return s->kernel && w->seq == 0 ? 2 : 1;
}

static int open_window(struct trace_substream *s)
{
	struct trace_reader *r = s->reader;
	release_window(s);
	if (s->window >= s->nwindows)
		return 0;
	const struct trace_window_ref *w = &s->windows[s->window++];
	uint64_t off = w->offset;
	s->gap = gap_before(s, w);
	s->fresh = s->window == 1 || s->gap;
	s->open_calls = 0;
	s->seq = w->seq;
	struct trace_chunk h;
	memcpy(&h, r->data + off, sizeof(h));
	const uint8_t *data = r->data + off + h.header_size;
	uint64_t limit = off + h.length < r->size ? off + h.length : r->size;
	s->p = data;
	s->end = h.used ? data + h.used : r->data + limit;
	if (s->end > r->data + limit) {
		if (s->quiet)
			s->corrupt++;
		else
			trace_reader_problem(r, off,
					     s->kernel ? "kernel chunk truncated"
						       : "event window truncated");
		s->end = r->data + limit;
		s->damaged = 1; /* noted now, said after the window */
	}
	s->chunk_offset = off;
	s->tick = h.base_tick;
	s->anchor_tick = h.clock_tick >> r->header.tick_shift;
	s->anchor_ns = (double)h.clock_ns - (double)r->header.start_mono_ns;
	s->ndict = 0;
	s->opened++;
	return 1;
}

static void window_corrupt(struct trace_substream *s, const char *what)
{
	report(s, s->chunk_offset + (uint64_t)(s->p - (s->reader->data + s->chunk_offset)), what);
	s->p = s->end;
	s->damaged = 1;
}

/* Reads a varint; 0 when it runs past the end or is too long. */
static inline int read_varint(struct trace_substream *s, uint64_t *out)
{
	const uint8_t *p = s->p;
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p >= s->end)
			return 0;
		uint8_t b = *p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			s->p = p;
			*out = v;
			return 1;
		}
	}
	return 0;
}

static inline uint64_t event_time(struct trace_substream *s, uint64_t delta)
{
	s->tick += delta;
	double ns =
	    s->anchor_ns + (double)(int64_t)(s->tick - s->anchor_tick) * s->reader->ns_per_unit;
	/* Saturates: a huge or corrupt delta must not overflow (nor NaN pass). */
	uint64_t t = ns < (double)TRACE_TIME_MAX ? (ns > 0 ? (uint64_t)ns : 0) : TRACE_TIME_MAX;
	if (t < s->last_ns)
		t = s->last_ns; /* never backwards within a thread */
	s->last_ns = t;
	return t;
}

static int define_function(struct trace_substream *s)
{
	uint64_t address;
	if (!read_varint(s, &address))
		return 0;
	if (!ARRAY_RESERVE(s->dict, s->ndict, s->cap_dict, 256))
		abort();
	s->dict[s->ndict++] = address;
	return 1;
}

/* Fills in the function of `fid`; 0 if the window has no such id. */
static inline int set_function(struct trace_substream *s, struct trace_event *ev, uint64_t fid)
{
	if (fid >= s->ndict)
		return 0;
	ev->fid = (uint32_t)fid;
	ev->address = s->dict[fid];
	ev->call_kind = TRACE_CALL_KIND(ev->address);
	return 1;
}

static inline __attribute__((always_inline)) int enter_event(struct trace_substream *s,
							     struct trace_event *ev, uint8_t b)
{
	uint64_t fid = b >> 2, high = 0, delta;
	if ((b & 3) == 3 && !read_varint(s, &high))
		return 0;
	if (!read_varint(s, &delta) || !set_function(s, ev, fid | high << 6))
		return 0;
	ev->type = TRACE_ENTER;
	ev->innermost = 0;
	ev->time_ns = event_time(s, delta);
	return 1;
}

static inline __attribute__((always_inline)) int exit_event(struct trace_substream *s,
							    struct trace_event *ev, uint8_t b)
{
	uint64_t delta = b >> 2, more = 0;
	if (delta == EV_SHORT_DELTA_MAX && !read_varint(s, &more))
		return 0;
	ev->type = TRACE_EXIT;
	ev->innermost = 1;
	ev->fid = 0;
	ev->address = 0;
	ev->call_kind = 0;
	ev->time_ns = event_time(s, delta + more);
	return 1;
}

/* The values of `kind` that follow the event just read, if any.  0 when
 * they are cut short. */
static inline int attached_values(struct trace_substream *s, struct trace_event *ev, unsigned kind)
{
	uint64_t len;
	ev->values = NULL;
	ev->values_len = 0;
	if (__builtin_expect(s->p >= s->end || *s->p != (uint8_t)(kind << 2), 1))
		return 1;
	s->p++;
	if (!read_varint(s, &len) || len > (uint64_t)(s->end - s->p))
		return 0;
	ev->values = s->p;
	ev->values_len = (uint32_t)len;
	s->p += len;
	return 1;
}

static int extended_event(struct trace_substream *s, struct trace_event *ev, unsigned kind)
{
	uint64_t delta, len;
	switch (kind) {
	case EV_DEFINE:
		return define_function(s) ? 0 : -1;
	case EV_PAUSE:
		if (!read_varint(s, &delta))
			return -1;
		ev->type = TRACE_PAUSE;
		ev->time_ns = event_time(s, delta);
		ev->lost = 0;
		return 1;
	case EV_EXIT_AT:
		if (!read_varint(s, &len) || !read_varint(s, &delta) || !set_function(s, ev, len))
			return -1;
		ev->type = TRACE_EXIT;
		ev->innermost = 0;
		ev->time_ns = event_time(s, delta);
		return 1;
	case EV_UNWIND:
		if (!read_varint(s, &delta) || !read_varint(s, &len) || len > UINT32_MAX)
			return -1;
		ev->type = TRACE_UNWIND;
		ev->time_ns = event_time(s, delta);
		ev->stay = (uint32_t)len;
		ev->lost = 0;
		return 1;
	case EV_ARGS:
	case EV_RETVAL: /* after no enter or exit (the call's was cut off): skipped */
		if (!read_varint(s, &len) || len > (uint64_t)(s->end - s->p))
			return -1;
		s->p += len;
		return 0;
	case EV_OPEN_CALLS: /* the enters that follow: known already, unless
			       this window is the first read */
		if (!read_varint(s, &len) || len > (uint64_t)(s->end - s->p))
			return -1;
		s->open_calls = (uint32_t)len;
		return 0;
	case EV_MARK:
		if (!read_varint(s, &delta) || !read_varint(s, &len) ||
		    len > (uint64_t)(s->end - s->p))
			return -1;
		ev->type = TRACE_MARK;
		ev->time_ns = event_time(s, delta);
		ev->mark = (const char *)s->p;
		ev->mark_len = (uint32_t)len;
		s->p += len;
		return 1;
	}
	return -1;
}

static int only_zeros_follow(const struct trace_substream *s)
{
	for (const uint8_t *q = s->p; q < s->end && q < s->p + 2 * EV_MAX_BYTES; q++)
		if (*q)
			return 0;
	return 1;
}

static inline __attribute__((always_inline)) int substream_next(struct trace_substream *s,
								struct trace_event *ev)
{
	for (;;) {
		if (s->p >= s->end) {
			/* Where events are missing (the rest of a corrupt
			 * window, windows before the next), the open calls end. */
			if (s->damaged)
				s->damaged = 0;
			else if (!open_window(s))
				return 0;
			else if (!s->gap)
				continue;
			ev->type = TRACE_PAUSE;
			ev->time_ns = s->last_ns;
			ev->lost = s->gap != 2;
			s->gap = 0;
			return 1;
		}
		uint8_t b = *s->p;
		if (b == 0) { /* the rest of the window was never written */
			s->p = s->end;
			continue;
		}
		s->p++;
		if (b & 1) {
			if (!enter_event(s, ev, b) || !attached_values(s, ev, EV_ARGS))
				goto corrupt;
			ev->before = 0;
			if (__builtin_expect(s->open_calls != 0, 0)) {
				s->open_calls--;
				if (!s->fresh)
					continue;
				ev->before = 1;
			}
		} else if ((b & 3) == 2) {
			if (!exit_event(s, ev, b) || !attached_values(s, ev, EV_RETVAL))
				goto corrupt;
		} else {
			int rc = extended_event(s, ev, b >> 2);
			if (rc < 0)
				goto corrupt;
			if (rc == 0)
				continue;
			ev->values = NULL;
			ev->values_len = 0;
			if (ev->type == TRACE_EXIT && !attached_values(s, ev, EV_RETVAL))
				goto corrupt;
		}
		return 1;
	corrupt:
		/* The last event of a window cut short by kill -9 may be
		 * incomplete (only zeros follow it); anything else is corruption.
		 * A kernel chunk is written whole. */
		if (s->kernel || !only_zeros_follow(s))
			window_corrupt(s, "corrupt event");
		s->p = s->end;
	}
}

int trace_substream_next(struct trace_substream *s, struct trace_event *ev)
{
	return substream_next(s, ev);
}

/* A thread without kernel chunks reads its windows as they are: the
 * decoder inlined here, as fast as before there were kernel chunks. */
int trace_cursor_next(struct trace_cursor *c, struct trace_event *ev)
{
	int more;
	if (c->merging) {
		more = trace_cursor_merged_next(c, ev);
	} else {
		more = substream_next(&c->own, ev);
		ev->kernel = 0;
		c->window_serial = c->own.opened;
		c->cap_dict = c->own.cap_dict;
	}
	if (more && !((ev->type == TRACE_PAUSE || ev->type == TRACE_UNWIND) && ev->lost))
		c->events++;
	return more;
}
