/*
 * unit_ranges.h - which compile unit of a DWARF file holds an address,
 * from the units' own ranges.  libdw finds a unit through .debug_aranges,
 * which clang does not write: without this, a clang-built program has no
 * source lines and no signatures.  Private to src/symbols/.
 */
#ifndef CALLTRACE_UNIT_RANGES_H
#define CALLTRACE_UNIT_RANGES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>

struct unit_range;

/* Starts empty ({0}); the ranges are read on the first search. */
struct unit_ranges {
	struct unit_range *units; /* sorted by address */
	size_t n;
	bool read;
};

/* The compile unit whose ranges hold `pc` (a DWARF address) into *cu. */
bool unit_ranges_find(struct unit_ranges *u, Dwarf *dwarf, Dwarf_Addr pc, Dwarf_Die *cu);
void unit_ranges_free(struct unit_ranges *u);

#endif
