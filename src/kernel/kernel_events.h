/*
 * kernel_events.h - the kernel's events as the collector handles them,
 * decoded from perf's records (perf_decode.c) and applied to each thread's
 * stream (kernel_threads.c).
 */
#ifndef CALLTRACE_KERNEL_EVENTS_H
#define CALLTRACE_KERNEL_EVENTS_H

#include <stdint.h>

struct perf_session;

enum kernel_event_kind {
	KEV_NONE = 0,
	KEV_SYS_ENTER,	/* nr, args[6] */
	KEV_SYS_EXIT,	/* nr, args[0] = raw return */
	KEV_SWITCH_OUT, /* preempted: runnable when it left the CPU */
	KEV_SWITCH_IN,
	KEV_EXEC, /* the thread's process exec'd (pid = tid after it) */
	KEV_THREAD_EXIT,
	KEV_LOST, /* args[0] events the ring had no room for */
};

struct kernel_event {
	uint64_t tick; /* the trace's clock */
	uint32_t kind; /* enum kernel_event_kind */
	uint32_t pid, tid;
	int32_t preempted; /* KEV_SWITCH_OUT */
	int64_t nr;
	uint64_t args[6];
	/* KEV_SYS_ENTER / EXIT: the copies of its arguments (capture_item
	 * and bytes), or NULL: from perf_decode, in the ring (valid while it
	 * is read); waiting in the collector's queue, at capture_at in the
	 * queue's bytes (event_queue.h). */
	uint8_t *capture;
	uint32_t capture_len, capture_at;
};

/* How perf's times become the trace's ticks. */
struct kernel_clock {
	int tsc; /* the trace's clock is the TSC: convert; else times are
		    CLOCK_MONOTONIC ns already (use_clockid) */
	const struct perf_session *perf;
};

/* Decodes one perf record into `ev`; 1 when it is an event of interest,
 * 0 when it is not. */
int perf_decode(const struct kernel_clock *clock, const struct perf_session *ps, const void *record,
		struct kernel_event *ev);

#endif
