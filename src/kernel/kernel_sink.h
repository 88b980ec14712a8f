/*
 * kernel_sink.h - one thread's kernel events on their way into the trace:
 * CHUNK_KERNEL chunks (trace_format.h), an event stream with its own
 * dictionary, written whole with pwrite at each flush.
 */
#ifndef CALLTRACE_KERNEL_SINK_H
#define CALLTRACE_KERNEL_SINK_H

#include <stdint.h>
#include "../format/trace_writer.h"

#define KERNEL_SINK_DICT 1024	       /* address -> fid slots (power of 2) */
#define KERNEL_SINK_CHUNK (256u << 10) /* a chunk is written once this full */

struct kernel_sink {
	struct trace_session *session;
	uint32_t pid, tid, seq;
	uint8_t *buf; /* the payload being built */
	uint32_t len, cap;
	uint64_t base_unit, last_unit; /* time units (tick >> tick_shift) */
	uint32_t next_fid;
	uint64_t dict_addr[KERNEL_SINK_DICT];
	uint32_t dict_fid[KERNEL_SINK_DICT];
	uint8_t dict_used[KERNEL_SINK_DICT];
	uint32_t dropped; /* chunks the file had no room for */
};

int kernel_sink_init(struct kernel_sink *k, struct trace_session *s, uint32_t pid, uint32_t tid);
/* The enter of `address` (a tagged call address) at `tick`, with EV_ARGS
 * `values` when len > 0.  0, or -1 when out of memory. */
int kernel_sink_enter(struct kernel_sink *k, uint64_t address, uint64_t tick, const uint8_t *values,
		      uint32_t len);
/* The exit of the innermost open call, with EV_RETVAL `values` when len > 0. */
int kernel_sink_exit(struct kernel_sink *k, uint64_t tick, const uint8_t *values, uint32_t len);
/* Writes what was gathered as one chunk (nothing when empty).  0, or -1. */
int kernel_sink_flush(struct kernel_sink *k);
void kernel_sink_destroy(struct kernel_sink *k);

#endif
