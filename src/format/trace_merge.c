/*
 * trace_merge.c - a thread's one stream of events (trace_cursor_next): its
 * own windows' and its kernel chunks', merged by time (trace_format.h's
 * tie rule), with the fids of the two dictionaries kept apart and the
 * nesting made consistent (trace_reader.h says how).  A thread without
 * kernel chunks reads its windows as they are (trace_cursor.c).
 */
#include "trace_cursor_internal.h"
#include "../utils/array.h"

#include <stdlib.h>
#include <string.h>

void trace_cursor_init(struct trace_cursor *c, struct trace_reader *r, const struct trace_thread *t)
{
	memset(c, 0, sizeof(*c));
	c->reader = r;
	c->thread = t;
	trace_substream_init(&c->own, r, t->windows, t->nwindows, t->tid, 0);
	trace_substream_init(&c->kernel, r, t->kernel_windows, t->nkernel_windows, t->tid, 1);
	c->merging = t->nkernel_windows > 0;
}

void trace_cursor_fini(struct trace_cursor *c)
{
	trace_substream_fini(&c->own);
	trace_substream_fini(&c->kernel);
	free(c->open);
	c->open = NULL;
	c->depth = c->cap_open = 0;
}

/* ---- the open calls of a merged thread ------------------------------------ */

static void push_call(struct trace_cursor *c, const struct trace_event *ev)
{
	if (!ARRAY_RESERVE(c->open, c->depth, c->cap_open, 64))
		abort();
	c->open[c->depth++] = (struct trace_open_frame){ev->address, ev->fid, (uint32_t)ev->kernel};
}

/* The innermost open call from the kernel (kernel 1) or the thread's own
 * (0) that is `address` (0: any), or -1. */
static long innermost_of(const struct trace_cursor *c, int kernel, uint64_t address)
{
	for (size_t i = c->depth; i-- > 0;)
		if ((int)c->open[i].kernel == kernel && (!address || c->open[i].address == address))
			return (long)i;
	return -1;
}

/* Where the calls that go on end when the `stay` outermost calls of one
 * source stay open: above the last of them. */
static size_t calls_kept(const struct trace_cursor *c, int kernel, uint32_t stay)
{
	uint32_t n = 0;
	for (size_t i = 0; i < c->depth; i++)
		if ((int)c->open[i].kernel == kernel && n++ == stay)
			return i;
	return c->depth;
}

/* The exit `ev` ends the open call at `i` (and those above it): it names it. */
static void exit_names(struct trace_cursor *c, struct trace_event *ev, size_t i)
{
	ev->innermost = 0;
	ev->address = c->open[i].address;
	ev->fid = c->open[i].fid;
	ev->call_kind = TRACE_CALL_KIND(ev->address);
	c->depth = i;
}

/* An event of the thread's own, fitted into the merged stream; 0: dropped. */
static int own_event(struct trace_cursor *c, struct trace_event *ev)
{
	long i;
	ev->kernel = 0;
	switch (ev->type) {
	case TRACE_ENTER:
		ev->fid *= 2;
		push_call(c, ev);
		return 1;
	case TRACE_EXIT:
		if (!ev->innermost) { /* the walker unwinds to it, if open */
			ev->fid *= 2;
			i = innermost_of(c, 0, ev->address);
			if (i >= 0)
				c->depth = (size_t)i;
			return 1;
		}
		if (c->depth == 0)
			return 1; /* nothing open: its enter came before the record */
		i = innermost_of(c, 0, 0);
		if (i < 0) { /* only kernel calls open: they are not its */
			ev->innermost = 0;
			ev->address = 0;
			return 1;
		}
		if ((size_t)i == c->depth - 1)
			c->depth--;
		else
			exit_names(c, ev, (size_t)i);
		return 1;
	case TRACE_PAUSE:
		c->depth = 0;
		return 1;
	case TRACE_UNWIND:
		ev->stay = (uint32_t)calls_kept(c, 0, ev->stay);
		if (ev->stay < c->depth)
			c->depth = ev->stay;
		return 1;
	case TRACE_MARK:
		return 1;
	}
	return 1;
}

/* An event of the kernel's, fitted into the merged stream; 0: dropped. */
static int kernel_event(struct trace_cursor *c, struct trace_event *ev)
{
	long i;
	size_t keep;
	ev->kernel = 1;
	switch (ev->type) {
	case TRACE_ENTER:
		ev->fid = ev->fid * 2 + 1;
		push_call(c, ev);
		return 1;
	case TRACE_EXIT:
		i = innermost_of(c, 1, ev->innermost ? 0 : ev->address);
		if (i < 0)
			return 0; /* entered before the record, or across a gap */
		exit_names(c, ev, (size_t)i);
		return 1;
	case TRACE_PAUSE:
	case TRACE_UNWIND:
		/* Kernel events missing: the kernel calls open end, unfinished. */
		keep = calls_kept(c, 1, ev->type == TRACE_UNWIND ? ev->stay : 0);
		if (keep >= c->depth)
			return 0;
		ev->lost = ev->type == TRACE_PAUSE ? ev->lost : 0;
		ev->type = TRACE_UNWIND;
		ev->stay = (uint32_t)keep;
		c->depth = keep;
		return 1;
	case TRACE_MARK:
		return 1;
	}
	return 1;
}

/* Whether the kernel's next event comes before the thread's: on equal
 * times a kernel exit (or anything but an enter) does.  Times compare in
 * the clock's units, as written: both sources read one clock, while each
 * chunk's conversion to ns has an anchor of its own. */
static int kernel_first(const struct trace_cursor *c)
{
	return c->kernel_unit < c->own_unit ||
	       (c->kernel_unit == c->own_unit && c->next_kernel.type != TRACE_ENTER);
}

static void refill(struct trace_cursor *c)
{
	if (!c->has_own && !c->own_done) {
		c->has_own = trace_substream_next(&c->own, &c->next_own);
		c->own_done = !c->has_own;
		c->own_unit = c->own.tick;
	}
	if (!c->has_kernel && !c->kernel_done) {
		c->has_kernel = trace_substream_next(&c->kernel, &c->next_kernel);
		c->kernel_done = !c->has_kernel;
		c->kernel_unit = c->kernel.tick;
	}
}

int trace_cursor_merged_next(struct trace_cursor *c, struct trace_event *ev)
{
	for (;;) {
		refill(c);
		if (!c->has_own && !c->has_kernel)
			return 0;
		int ok;
		if (c->has_kernel && (!c->has_own || kernel_first(c))) {
			*ev = c->next_kernel;
			c->has_kernel = 0;
			ok = kernel_event(c, ev);
		} else {
			*ev = c->next_own;
			c->has_own = 0;
			ok = own_event(c, ev);
		}
		/* Both only grow: the sum changes whenever a dictionary does. */
		c->window_serial = c->own.opened + c->kernel.opened;
		uint32_t cap =
		    c->own.cap_dict > c->kernel.cap_dict ? c->own.cap_dict : c->kernel.cap_dict;
		c->cap_dict = 2 * cap + 2;
		if (!ok)
			continue;
		if (ev->time_ns < c->last_ns)
			ev->time_ns = c->last_ns; /* never backwards within a thread */
		c->last_ns = ev->time_ns;
		return 1;
	}
}
