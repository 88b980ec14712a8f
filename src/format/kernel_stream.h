/*
 * kernel_stream.h - write the CHUNK_KERNEL chunks of one thread: the system
 * calls and off-CPU intervals the kernel saw it make (trace_format.h).
 *
 * A kernel_stream buffers one thread's events in memory, in the event
 * syntax of an event window (its own fid dictionary, deltas in time units
 * from the chunk's base_tick), and writes them out as one CHUNK_KERNEL
 * chunk when the buffer is full or when asked (kernel_stream_flush): the
 * collector flushes now and then, so that a kill -9 loses little.  Times
 * are raw ticks of the session's clock, as trace_clock_tick() gives them;
 * the stream applies the session's tick_shift and anchors each chunk's
 * ticks to CLOCK_MONOTONIC as event windows do, so the reader converts
 * both alike.
 *
 * The reader gives a whole chunk to the image of (pid, tid) that ran at
 * the chunk's first event: a collector calls kernel_stream_exec when the
 * thread execs, so that no chunk spans two images and the reader knows
 * where the new one began.
 *
 * Not for the traced program's own process: this allocates.
 */
#ifndef CALLTRACE_KERNEL_STREAM_H
#define CALLTRACE_KERNEL_STREAM_H

#include <stdint.h>
#include "trace_writer.h"

#define KERNEL_STREAM_SIZE (64u << 10)	  /* payload bytes of one chunk by default */
#define KERNEL_STREAM_MIN_SIZE (4u << 10) /* the least a stream buffers */
#define KERNEL_STREAM_DICT 512		  /* fid slots of a chunk (hashed) */
#define KERNEL_SYSCALL_ARGS_BYTES 60	  /* six VALUE_BYTES of 8 bytes */
#define KERNEL_SYSCALL_RET_BYTES 10	  /* one VALUE_BYTES of 8 bytes */

struct kernel_fid_slot {
	uint64_t address;      /* tagged (TRACE_CALL_ADDRESS) */
	uint32_t fid_plus_one; /* 0: free */
	uint32_t pad;
};

struct kernel_stream {
	struct trace_session *session;
	uint32_t pid, tid;
	uint32_t seq; /* the next chunk's sequence number */
	uint32_t tick_shift;
	uint8_t *buf;	    /* the payload being built */
	uint32_t capacity;  /* bytes of buf */
	uint32_t used;	    /* bytes of buf filled */
	uint64_t base_unit; /* time unit of the chunk's first event */
	uint64_t last_unit; /* of the last event written (never goes back) */
	uint32_t next_fid;
	uint32_t depth;		  /* calls entered and not yet exited */
	uint32_t events_in_chunk; /* events buffered */
	struct kernel_fid_slot dict[KERNEL_STREAM_DICT];
	/* Counts, for the collector's own report. */
	uint64_t events;	/* events written into chunks */
	uint64_t chunks;	/* chunks written */
	uint64_t lost_events;	/* events of chunks that could not be written */
	uint64_t dropped_exits; /* exits with no call open (entered before
				   collection began) */
};

/* Sets up the stream of thread `tid` of process `pid` writing into `s`,
 * buffering `capacity` payload bytes (0: KERNEL_STREAM_SIZE).  0, or -1
 * with errno. */
int kernel_stream_init(struct kernel_stream *ks, struct trace_session *s, uint32_t pid,
		       uint32_t tid, uint32_t capacity);
/* The enter of the call `tagged_address` (TRACE_CALL_ADDRESS(CALL_SYSCALL,
 * nr) or (CALL_OFFCPU, reason)) at raw tick `tick`, with `len` bytes of
 * tagged values (EV_ARGS; len 0: none).  0, or -1 when it could not be
 * written (values longer than TRACE_VALUES_MAX, the chunk could not be
 * written). */
int kernel_stream_enter(struct kernel_stream *ks, uint64_t tagged_address, uint64_t tick,
			const uint8_t *values, uint32_t len);
/* The exit of the innermost open call, with `len` bytes of tagged values
 * (EV_RETVAL).  An exit with no call open is dropped (-1): its enter came
 * before the collector began. */
int kernel_stream_exit(struct kernel_stream *ks, uint64_t tick, const uint8_t *values,
		       uint32_t len);
/* Writes what is buffered as one CHUNK_KERNEL chunk (nothing when empty);
 * the next event starts a new chunk and dictionary.  0, or -1 when the
 * chunk could not be written (its events are counted in lost_events). */
int kernel_stream_flush(struct kernel_stream *ks);
/* The thread exec'd (or will run a new image from the next event on):
 * flushes, and numbers the next chunk 0 again; the calls open (the execve)
 * are forgotten, so the execve's return is dropped as an exit with nothing
 * open.  The reader takes a run of
 * chunks numbered from 0 for the beginning of a new image of the pid, so
 * that the loader's system calls belong to the image it loads.  Call it for
 * the thread that execs (its tid is the pid then).  0, or -1 as flush. */
int kernel_stream_exec(struct kernel_stream *ks);
/* Flushes and frees the buffer. */
void kernel_stream_fini(struct kernel_stream *ks);

/* The EV_ARGS values of a system call (its six raw argument registers)
 * at out (KERNEL_SYSCALL_ARGS_BYTES); returns the byte count. */
uint32_t kernel_syscall_args(uint8_t *out, const uint64_t args[6]);
/* The EV_RETVAL value of a system call (the raw return: -errno on
 * failure) at out (KERNEL_SYSCALL_RET_BYTES); returns the byte count. */
uint32_t kernel_syscall_ret(uint8_t *out, int64_t ret);

/* Shorthands: a system call's enter (six raw arguments) and exit (the raw
 * return), an off-CPU interval's (enum trace_offcpu_reason) enter and exit. */
int kernel_stream_syscall_enter(struct kernel_stream *ks, uint32_t nr, uint64_t tick,
				const uint64_t args[6]);
int kernel_stream_syscall_exit(struct kernel_stream *ks, uint64_t tick, int64_t ret);
int kernel_stream_offcpu_enter(struct kernel_stream *ks, uint32_t reason, uint64_t tick);
int kernel_stream_offcpu_exit(struct kernel_stream *ks, uint64_t tick);

#endif
