/*
 * test_address_table.c - the in-process engine's table of entries keyed by
 * code address (src/patch/address_table.c): entries added through several
 * growths are all found with their payload; removals, one at a time and by
 * a predicate, leave every other entry findable (the shifted-back ones
 * too, in clusters that wrap around the table's end) and the removed ones
 * gone; a walk visits each entry once.
 */
#include "../../src/patch/address_table.c"

#include <stdio.h>
#include <stdlib.h>

#include "check.h"

struct entry {
	uint64_t address;
	uint64_t payload;
};

#define N 20000

static uint64_t addresses[N];
static int present[N];

/* Addresses as code has them: close together, many sharing a home. */
static uint64_t address_of(int i)
{
	return 0x7f0000400000ull + (uint64_t)i * 16 + (uint64_t)(i % 7) * 0x100000;
}

static int odd_payload(void *e, void *ctx)
{
	(void)ctx;
	return ((struct entry *)e)->payload % 2 == 1;
}

/* Each address present is found with its payload; each other is not. */
static int all_as_expected(const struct address_table *t)
{
	for (int i = 0; i < N; i++) {
		struct entry *e = address_table_find(t, addresses[i]);
		if (present[i] ? !e || e->payload != (uint64_t)i : e != NULL)
			return 0;
	}
	return 1;
}

static int walk_count(const struct address_table *t)
{
	size_t cursor = 0;
	int n = 0;
	while (address_table_next(t, &cursor))
		n++;
	return n;
}

int main(void)
{
	struct address_table t = {.entry_size = sizeof(struct entry), .first_size = 64};
	CHECK(address_table_find(&t, 0x1000) == NULL, "an empty table finds nothing");
	for (int i = 0; i < N; i++) {
		addresses[i] = address_of(i);
		struct entry *e = address_table_add(&t, addresses[i]);
		CHECK(e && e->payload == 0, "a new entry of %#llx",
		      (unsigned long long)addresses[i]);
		if (e)
			e->payload = (uint64_t)i;
		present[i] = 1;
	}
	CHECK(address_table_add(&t, addresses[5]) == address_table_find(&t, addresses[5]),
	      "adding an address there gives its entry");
	CHECK(t.used == N, "%zu entries, %d added", t.used, N);
	CHECK(all_as_expected(&t), "every entry found after growing");
	CHECK(walk_count(&t) == N, "the walk visits %d entries, %d there", walk_count(&t), N);

	for (int i = 0; i < N; i += 3) {
		address_table_remove(&t, address_table_find(&t, addresses[i]));
		present[i] = 0;
	}
	CHECK(all_as_expected(&t), "every other entry found after removing a third");
	size_t odd = 0;
	for (int i = 0; i < N; i++)
		odd += present[i] && i % 2 == 1;
	size_t removed = address_table_remove_if(&t, odd_payload, NULL);
	for (int i = 1; i < N; i += 2)
		present[i] = 0;
	CHECK(removed == odd, "%zu removed by the predicate, %zu expected", removed, odd);
	CHECK(all_as_expected(&t), "the even entries found after removing the odd");
	CHECK(walk_count(&t) == (int)t.used, "the walk visits %d, %zu there", walk_count(&t),
	      t.used);

	/* A full small table whose cluster wraps around its end. */
	struct address_table small = {.entry_size = sizeof(struct entry), .first_size = 8};
	uint64_t wrap[3];
	int n = 0;
	for (uint64_t a = 0x1000; n < 3; a += 0x10)
		if (home_of(a, 8) == 7)
			wrap[n++] = a;
	for (int i = 0; i < 3; i++)
		((struct entry *)address_table_add(&small, wrap[i]))->payload = (uint64_t)i;
	address_table_remove(&small, address_table_find(&small, wrap[0]));
	struct entry *e1 = address_table_find(&small, wrap[1]);
	struct entry *e2 = address_table_find(&small, wrap[2]);
	CHECK(e1 && e1->payload == 1 && e2 && e2->payload == 2 &&
		  !address_table_find(&small, wrap[0]),
	      "a cluster wrapping around the end shifts back");
	return CHECK_SUMMARY("test_address_table");
}
