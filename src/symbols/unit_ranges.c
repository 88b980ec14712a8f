/*
 * unit_ranges.c - the compile units of a DWARF file by address (see
 * unit_ranges.h).
 */
#include "unit_ranges.h"

#include <stdlib.h>

/* One address range of a compile unit. */
struct unit_range {
	Dwarf_Addr low, high;
	Dwarf_Off offset; /* of the unit's DIE */
};

static int by_low(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;
	return x->low < y->low ? -1 : x->low > y->low;
}

static void add_unit(struct unit_ranges *u, Dwarf_Die *cu, size_t *cap)
{
	Dwarf_Addr base, low, high;
	ptrdiff_t at = 0;
	while ((at = dwarf_ranges(cu, at, &base, &low, &high)) > 0) {
		if (u->n == *cap) {
			size_t grown = *cap ? *cap * 2 : 64;
			struct unit_range *units = realloc(u->units, grown * sizeof(*units));
			if (!units)
				return;
			u->units = units;
			*cap = grown;
		}
		u->units[u->n++] = (struct unit_range){low, high, dwarf_dieoffset(cu)};
	}
}

/* Every compile unit's ranges, sorted, read once. */
static void read_units(struct unit_ranges *u, Dwarf *dwarf)
{
	Dwarf_Off off = 0, next;
	size_t header, cap = 0;
	Dwarf_Die cu;
	u->read = true;
	while (dwarf_nextcu(dwarf, off, &next, &header, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dwarf, off + header, &cu))
			add_unit(u, &cu, &cap);
		off = next;
	}
	if (u->n)
		qsort(u->units, u->n, sizeof(*u->units), by_low);
}

bool unit_ranges_find(struct unit_ranges *u, Dwarf *dwarf, Dwarf_Addr pc, Dwarf_Die *cu)
{
	if (!u->read)
		read_units(u, dwarf);
	size_t lo = 0, hi = u->n; /* the last range starting at or below pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->units[mid].low <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && pc < u->units[lo - 1].high &&
	       dwarf_offdie(dwarf, u->units[lo - 1].offset, cu) != NULL;
}

void unit_ranges_free(struct unit_ranges *u)
{
	free(u->units);
	*u = (struct unit_ranges){0};
}
