/*
 * sort_addresses.h - sorts addresses in time linear in their count (a
 * radix sort by bytes), with no allocation: for code that runs inside a
 * traced process, whose malloc may be its own, and that may sort tens of
 * thousands of functions.
 */
#ifndef CALLTRACE_SORT_ADDRESSES_H
#define CALLTRACE_SORT_ADDRESSES_H

#include <stddef.h>
#include <stdint.h>

/* Sorts the `n` addresses at `a` ascending, `scratch` holding as many. */
static inline void sort_addresses(uint64_t *a, size_t n, uint64_t *scratch)
{
	uint64_t *from = a, *to = scratch;
	for (int shift = 0; shift < 64; shift += 8) {
		size_t at[257] = {0};
		for (size_t i = 0; i < n; i++)
			at[((from[i] >> shift) & 0xff) + 1]++;
		for (int d = 0; d < 256; d++)
			at[d + 1] += at[d];
		for (size_t i = 0; i < n; i++)
			to[at[(from[i] >> shift) & 0xff]++] = from[i];
		uint64_t *t = from;
		from = to;
		to = t;
	}
	/* Eight passes: the sorted addresses are back in `a`. */
}

#endif
