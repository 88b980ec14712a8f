/*
 * address_table.c - a table of entries keyed by a code address (see
 * address_table.h): open addressing, linear probing, removal by shifting
 * the entries after a hole back (no tombstones).
 */
#include "address_table.h"

#include <string.h>
#include <sys/mman.h>

struct address_table_map {
	size_t size; /* slots, a power of two */
	size_t bytes;
	uint64_t slots[]; /* size entries of entry_size bytes */
};

static struct address_table_map *map_of(const struct address_table *t)
{
	return __atomic_load_n(&t->map, __ATOMIC_ACQUIRE);
}

static uint8_t *slot(const struct address_table *t, const struct address_table_map *m, size_t i)
{
	return (uint8_t *)m->slots + i * t->entry_size;
}

static uint64_t address_at(const struct address_table *t, const struct address_table_map *m,
			   size_t i)
{
	uint64_t a;
	memcpy(&a, slot(t, m, i), sizeof(a));
	return a;
}

static size_t home_of(uint64_t address, size_t size)
{
	return (size_t)((address * 0x9e3779b97f4a7c15ull) >> 24) & (size - 1);
}

/* The slot of `address` in `m`, or of the free slot where it would go. */
static size_t probe(const struct address_table *t, const struct address_table_map *m,
		    uint64_t address)
{
	size_t i = home_of(address, m->size);
	for (;;) {
		uint64_t a = address_at(t, m, i);
		if (a == address || a == 0)
			return i;
		i = (i + 1) & (m->size - 1);
	}
}

void *address_table_find(const struct address_table *t, uint64_t address)
{
	const struct address_table_map *m = map_of(t);
	if (!m || !address)
		return NULL;
	size_t i = probe(t, m, address);
	return address_at(t, m, i) == address ? slot(t, m, i) : NULL;
}

/* Moves the entries into a table of at least `least` slots. */
static int grow(struct address_table *t, size_t least)
{
	struct address_table_map *old = t->map;
	size_t size = old ? 2 * old->size : t->first_size;
	while (size < least)
		size *= 2;
	size_t bytes = sizeof(*old) + size * t->entry_size;
	/* Populated at once: the entries lie scattered over every page, each
	 * page would fault twice (read by a probe, then written). */
	struct address_table_map *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	m->size = size;
	m->bytes = bytes;
	for (size_t i = 0; old && i < old->size; i++) {
		uint64_t a = address_at(t, old, i);
		if (a)
			memcpy(slot(t, m, probe(t, m, a)), slot(t, old, i), t->entry_size);
	}
	__atomic_store_n(&t->map, m, __ATOMIC_RELEASE);
	if (old && !t->keep_old)
		munmap(old, old->bytes);
	return 0;
}

void *address_table_add(struct address_table *t, uint64_t address)
{
	void *e = address_table_find(t, address);
	if (e || !address)
		return e;
	if ((!t->map || 4 * (t->used + 1) > 3 * t->map->size) && grow(t, 0) < 0)
		return NULL;
	uint8_t *s = slot(t, t->map, probe(t, t->map, address));
	memset(s, 0, t->entry_size);
	memcpy(s, &address, sizeof(address));
	t->used++;
	return s;
}

int address_table_reserve(struct address_table *t, size_t more)
{
	size_t least = (4 * (t->used + more) + 2) / 3;
	if (t->map && least <= t->map->size)
		return 0;
	return grow(t, least);
}

/* Whether an entry whose home is `home` may move back to the hole at
 * `hole` from `at` (the hole lies cyclically in [home, at)). */
static int may_fill(size_t home, size_t hole, size_t at)
{
	return hole <= at ? home <= hole || home > at : home <= hole && home > at;
}

void address_table_remove(struct address_table *t, void *entry)
{
	struct address_table_map *m = t->map;
	size_t hole = (size_t)((uint8_t *)entry - (uint8_t *)m->slots) / t->entry_size;
	for (size_t at = (hole + 1) & (m->size - 1);; at = (at + 1) & (m->size - 1)) {
		uint64_t a = address_at(t, m, at);
		if (a == 0)
			break;
		if (may_fill(home_of(a, m->size), hole, at)) {
			memcpy(slot(t, m, hole), slot(t, m, at), t->entry_size);
			hole = at;
		}
	}
	memset(slot(t, m, hole), 0, t->entry_size);
	t->used--;
}

void *address_table_next(const struct address_table *t, size_t *cursor)
{
	const struct address_table_map *m = map_of(t);
	for (; m && *cursor < m->size; (*cursor)++)
		if (address_at(t, m, *cursor))
			return slot(t, m, (*cursor)++);
	return NULL;
}

size_t address_table_remove_if(struct address_table *t, int (*doomed)(void *entry, void *ctx),
			       void *ctx)
{
	struct address_table_map *m = t->map;
	size_t n = 0;
	/* A removal moves a later entry into the slot: it is looked at again. */
	for (size_t i = 0; m && i < m->size;) {
		uint8_t *s = slot(t, m, i);
		if (address_at(t, m, i) && doomed(s, ctx)) {
			address_table_remove(t, s);
			n++;
		} else {
			i++;
		}
	}
	return n;
}
