/* inventory.c - stock keeping of the example shop, built as the static
 * library libinventory.a. */
#include <string.h>
#include "inventory.h"

struct stock {
	const char *item;
	int on_hand;
};

static struct stock shelves[] = {{"teapot", 5}, {"kettle", 2}, {"mug", 40}};

static struct stock *find_shelf(const char *item)
{
	for (size_t i = 0; i < sizeof(shelves) / sizeof(shelves[0]); i++)
		if (strcmp(shelves[i].item, item) == 0)
			return &shelves[i];
	return NULL;
}

int inventory_check_stock(const char *item, int quantity)
{
	struct stock *s = find_shelf(item);
	return s && s->on_hand >= quantity;
}

int inventory_reserve(const char *item, int quantity)
{
	if (!inventory_check_stock(item, quantity))
		return 0;
	find_shelf(item)->on_hand -= quantity;
	return 1;
}
