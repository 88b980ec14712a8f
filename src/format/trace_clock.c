/*
 * trace_clock.c - choose the event clock and measure its rate (the
 * architecture's counter is calibrated against CLOCK_MONOTONIC alike).
 *
 * The rate is measured over a quarter of a millisecond, a busy wait that
 * every recording pays at its start: each end of the interval is a pair of
 * reads taken within some tens of nanoseconds, so the rate is within a few
 * hundred parts per million, and the reader measures it again over the
 * whole trace (trace_reader.c) when the trace spans more than 20 ms.
 */
#include "trace_clock.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int trace_clock_kind = TRACE_CLOCK_MONOTONIC;

int trace_clock_init(void)
{
	const char *force = getenv("CALLTRACE_CLOCK");
	if (force && strcmp(force, "monotonic") == 0)
		trace_clock_kind = TRACE_CLOCK_MONOTONIC;
	else
		trace_clock_kind =
		    arch_counter_invariant() ? TRACE_CLOCK_TSC : TRACE_CLOCK_MONOTONIC;
	return trace_clock_kind;
}

/* CLOCK_MONOTONIC and the counter at one moment: the read of the clock
 * between two of the counter, the closest of a few (a pair that a
 * preemption split would mislead the rate). */
static void clock_pair(uint64_t *ns, uint64_t *tick)
{
	uint64_t gap = UINT64_MAX;
	for (int i = 0; i < 8; i++) {
		uint64_t before = trace_clock_tick(), at = trace_clock_monotonic_ns();
		uint64_t after = trace_clock_tick();
		if (after - before < gap) {
			gap = after - before;
			*ns = at;
			*tick = before + gap / 2;
		}
	}
}

uint64_t trace_clock_calibrate(unsigned us)
{
	if (trace_clock_kind != TRACE_CLOCK_TSC)
		return 1000000000u;
	uint64_t ns0, t0, ns1, t1;
	clock_pair(&ns0, &t0);
	while (trace_clock_monotonic_ns() - ns0 < (uint64_t)us * 1000u)
		;
	clock_pair(&ns1, &t1);
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(ns1 - ns0));
}
