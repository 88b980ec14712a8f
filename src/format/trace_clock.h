/*
 * trace_clock.h - the clock every event source stamps events with.
 *
 * The architecture's counter (arch/<cpu>/arch.h: the TSC on x86-64,
 * cntvct_el0 on aarch64) where it is invariant (constant and non-stop),
 * else CLOCK_MONOTONIC in nanoseconds.  trace_clock_init() decides once per
 * process; trace_clock_tick() is what the hot path calls.
 */
#ifndef CALLTRACE_TRACE_CLOCK_H
#define CALLTRACE_TRACE_CLOCK_H

#include <stdint.h>
#include <time.h>
#include "../arch/arch.h"
#include "trace_format.h"

extern int trace_clock_kind; /* enum trace_clock, set by trace_clock_init */

static inline uint64_t trace_clock_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The counter, for callers that know trace_clock_kind is TRACE_CLOCK_TSC
 * (the header's name for "the architecture's counter"). */
static inline uint64_t trace_clock_tsc(void)
{
	return arch_counter_read();
}

static inline uint64_t trace_clock_tick(void)
{
	if (__builtin_expect(trace_clock_kind == TRACE_CLOCK_TSC, 1))
		return arch_counter_read();
	return trace_clock_monotonic_ns();
}

/* CLOCK_MONOTONIC and the clock at one moment, to anchor ticks to ns: on
 * CLOCK_MONOTONIC the same read gives both (two reads can be hundreds of
 * ns apart under load, and the times shown would drift between chunks). */
static inline void trace_clock_anchor(uint64_t *ns, uint64_t *tick)
{
	*ns = trace_clock_monotonic_ns();
	*tick = trace_clock_kind == TRACE_CLOCK_TSC ? trace_clock_tsc() : *ns;
}

/* Picks the clock; returns enum trace_clock. */
int trace_clock_init(void);
/* Ticks per second, measured over about `us` microseconds. */
uint64_t trace_clock_calibrate(unsigned us);

#endif
