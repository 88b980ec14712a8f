/*
 * trace_writer_internal.h - what the writer's files share: chunk headers,
 * and the ring's slots (trace_ring.c).
 */
#ifndef CALLTRACE_TRACE_WRITER_INTERNAL_H
#define CALLTRACE_TRACE_WRITER_INTERNAL_H

#include "trace_writer.h"

/* A chunk header of `kind` for thread `tid`, anchored on the clock now. */
void trace_chunk_fill(struct trace_chunk *c, uint32_t kind, uint32_t length,
		      const struct trace_session *s, uint32_t tid);

/* Gives [off, off+len) of the file disk blocks (trace_session_claim's
 * way); 0, or -1 with errno. */
int trace_session_reserve(int fd, uint64_t off, uint64_t len);
/* Claims `len` bytes (rounded up to 8) of file space without disk blocks
 * (the file is only made that long): a ring's slots get theirs when first
 * used.  The offset, or 0 (then the session is broken). */
uint64_t trace_session_claim_sparse(struct trace_session *s, uint64_t len);

/* Maps the ring's slot table when the session's file is a ring; 0, or -1. */
int trace_ring_map(struct trace_session *s);
void trace_ring_unmap(struct trace_session *s);
/* File offset of ring slot `slot`. */
uint64_t trace_ring_slot_offset(const struct trace_session *s, uint32_t slot);
/* A slot for thread `tid`'s new window (number `seq`), zero-filled,
 * mapped: *chunk, *map, *map_len set; the slot + 1; TRACE_RING_PRIVATE
 * when no slot could be had (a window in memory, copied in when full); 0
 * when not even that. */
uint32_t trace_ring_open_window(struct trace_session *s, uint32_t tid, uint32_t seq,
				struct trace_chunk **chunk, void **map, size_t *map_len);
/* The next window of `st` has begun in its slot: its number noted, the
 * slot's gen even again. */
void trace_ring_window_begun(struct trace_stream *st);
/* Copies the full window of `st` into another slot and starts the next one
 * in the same slot (its bytes zeroed); 0, or -1 when no slot could take it. */
int trace_ring_copy_out(struct trace_stream *st);
/* Marks the working window of `st` whole: a slot the ring may reuse. */
void trace_ring_window_closed(struct trace_stream *st);
/* Working slots whose writer is gone become whole windows the ring may
 * reuse: those of this process's earlier images (after an exec), and
 * unless `own_only`, those of processes that ended (kill -9, exit). */
void trace_ring_reclaim(struct trace_session *s, int own_only);
/* The calls entered in the window of slot `slot` (trace_ring_count.c). */
uint64_t trace_ring_count_calls(const struct trace_session *s, uint32_t slot);
/* The slot's gen goes odd (begin) and even again (end) around a change. */
void trace_ring_change(struct trace_session *s, uint32_t slot, int begin);

#endif
