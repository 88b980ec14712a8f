/*
 * trace_clock.c - choose the event clock and measure its rate (the
 * architecture's counter is calibrated against CLOCK_MONOTONIC alike).
 */
#include "trace_clock.h"

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

uint64_t trace_clock_calibrate(unsigned ms)
{
	if (trace_clock_kind != TRACE_CLOCK_TSC)
		return 1000000000u;
	uint64_t ns0 = trace_clock_monotonic_ns(), t0 = trace_clock_tick();
	uint64_t ns1, t1;
	do {
		ns1 = trace_clock_monotonic_ns();
		t1 = trace_clock_tick();
	} while (ns1 - ns0 < (uint64_t)ms * 1000000u);
	return (uint64_t)((double)(t1 - t0) * 1e9 / (double)(ns1 - ns0));
}
