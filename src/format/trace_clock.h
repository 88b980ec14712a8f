/*
 * trace_clock.h - the clock every event source stamps events with.
 *
 * The TSC where it is invariant (constant and non-stop), else
 * CLOCK_MONOTONIC in nanoseconds.  trace_clock_init() decides once per
 * process; trace_clock_tick() is what the hot path calls.
 */
#ifndef CALLTRACE_TRACE_CLOCK_H
#define CALLTRACE_TRACE_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif
#include "trace_format.h"

extern int trace_clock_kind; /* enum trace_clock, set by trace_clock_init */

static inline uint64_t trace_clock_monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The TSC, for callers that know trace_clock_kind is TRACE_CLOCK_TSC. */
static inline uint64_t trace_clock_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#else
	return 0;
#endif
}

static inline uint64_t trace_clock_tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(trace_clock_kind == TRACE_CLOCK_TSC, 1))
		return __rdtsc();
#endif
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
/* Ticks per second, measured over about `ms` milliseconds. */
uint64_t trace_clock_calibrate(unsigned ms);

#endif
