/*
 * trace_cursor_internal.h - the decoder of one source of a thread's events
 * (trace_cursor.c), shared by the cursor's merge (trace_merge.c) and the
 * index, which checks each kernel chunk whole with it.
 */
#ifndef CALLTRACE_TRACE_CURSOR_INTERNAL_H
#define CALLTRACE_TRACE_CURSOR_INTERNAL_H

#include "trace_reader.h"

/* Sets up `s` to read the `n` windows of thread `tid` (kernel: its
 * CHUNK_KERNEL chunks). */
void trace_substream_init(struct trace_substream *s, struct trace_reader *r,
			  const struct trace_window_ref *windows, size_t n, uint32_t tid,
			  int kernel);
/* The next event of `s` into *ev (fid as its window numbers it), 1; 0 at
 * the end.  A corrupt event is a problem of the reader's, unless s->quiet
 * (then s->corrupt counts it). */
int trace_substream_next(struct trace_substream *s, struct trace_event *ev);
/* Gives back the pages of the window being read, and the dictionary. */
void trace_substream_fini(struct trace_substream *s);

/* trace_cursor_next of a thread with kernel chunks (trace_merge.c). */
int trace_cursor_merged_next(struct trace_cursor *c, struct trace_event *ev);

#endif
