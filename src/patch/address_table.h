/*
 * address_table.h - a table of entries keyed by a code address, for the
 * in-process engine's bookkeeping (the marks that wait for a first call,
 * the entries an attach rewrote).  Open addressing with linear probing in
 * a power of two of slots, grown by doubling when three quarters full
 * (lookups are rare: a trap, a first call; the table's pages are not).
 * An entry is the caller's struct and starts with its uint64_t address
 * (0: a free slot).  The caller serializes changes (its lock); a lookup reads one
 * published mapping (its size inside), so it never pairs an old table
 * with a new size.
 */
#ifndef CALLTRACE_ADDRESS_TABLE_H
#define CALLTRACE_ADDRESS_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct address_table_map; /* the slots and their count, one mapping */

struct address_table {
	size_t entry_size; /* bytes of an entry, its address first */
	size_t first_size; /* slots of the first table, a power of two */
	/* A grown table leaves the old one mapped: for a caller whose own
	 * lookups may run inside a change (a trap under its lock). */
	int keep_old;
	struct address_table_map *map; /* NULL until the first entry */
	size_t used;
};

/* The entry of `address`, or NULL. */
void *address_table_find(const struct address_table *t, uint64_t address);
/* The entry of `address`: the one there, or a new one, zeroed but for its
 * address; NULL when there is no memory for it. */
void *address_table_add(struct address_table *t, uint64_t address);
/* Makes room for `more` entries at once (one growth, not several); 0, or
 * -1 when there is no memory for it (the table is as it was). */
int address_table_reserve(struct address_table *t, size_t more);
/* Removes an entry that address_table_find or _add gave. */
void address_table_remove(struct address_table *t, void *entry);
/* Each entry in turn: start with *cursor 0; NULL after the last.  An entry
 * removed meanwhile may move one another visits again or skips: remove
 * only with address_table_remove_if. */
void *address_table_next(const struct address_table *t, size_t *cursor);
/* Removes every entry `doomed` says so of; how many. */
size_t address_table_remove_if(struct address_table *t, int (*doomed)(void *entry, void *ctx),
			       void *ctx);

#endif
