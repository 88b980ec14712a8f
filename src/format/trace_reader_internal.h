/*
 * trace_reader_internal.h - what the reader's files share and no other
 * code sees: the index's growth and problem helpers, the images and
 * threads, the record parsers and the kernel chunks' index.
 */
#ifndef CALLTRACE_TRACE_READER_INTERNAL_H
#define CALLTRACE_TRACE_READER_INTERNAL_H

#include <stdlib.h>
#include "trace_reader.h"
#include "../utils/array.h"

/* The index cannot go on without its arrays: out of memory ends the tool. */
#define GROW(arr, n, cap)                                                                          \
	do {                                                                                       \
		if (!ARRAY_RESERVE(arr, n, cap, 16))                                               \
			abort();                                                                   \
	} while (0)

/* A loss that is not corruption (windows lost or missing, calls dropped);
 * the caller counts it in r->losses. */
void trace_reader_note_loss(struct trace_reader *r, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *trace_reader_copy_string(const uint8_t *p, size_t len);
/* NUL-separated arguments joined with spaces. */
char *trace_reader_join_arguments(const uint8_t *p, size_t len);

/* The image `id` (made, for process `pid`, when it is new). */
struct trace_image *trace_reader_image_get(struct trace_reader *r, uint32_t id, uint32_t pid);
/* The thread (image, tid) (made when it is new). */
struct trace_thread *trace_reader_thread_get(struct trace_reader *r, uint32_t image, uint32_t pid,
					     uint32_t tid);
/* The time of a chunk's clock anchor, in ns since the session started. */
uint64_t trace_chunk_time_ns(const struct trace_reader *r, const struct trace_chunk *c);

/* Record chunks (payload p, len bytes, within the file). */
void trace_read_process(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
			const uint8_t *p, size_t len);
void trace_read_module(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		       const uint8_t *p, size_t len);
void trace_read_thread(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		       const uint8_t *p, size_t len);
void trace_read_crash(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		      const uint8_t *p, size_t len);
/* Notes the time of a chunk of an image: its first record's is when the
 * image began (trace_image.first_ns). */
void trace_image_seen(struct trace_reader *r, const struct trace_chunk *c);
void trace_index_window(struct trace_reader *r, uint64_t off, const struct trace_chunk *c);

/* Kernel chunks (trace_kernel_index.c): each is checked and noted while
 * the chunks are walked, and given to its thread once every image is
 * known, after the clock is set. */
void trace_kernel_note(struct trace_reader *r, uint64_t off, const struct trace_chunk *c);
void trace_kernel_assign(struct trace_reader *r);

#endif
