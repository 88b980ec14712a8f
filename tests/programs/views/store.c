/* store.c - a tiny key-value store. */
#include "requests.h"

static int table[128];

static int slot(int key)
{
	return key & 127;
}

int store_get(int key)
{
	return table[slot(key)];
}

void store_put(int key, int value)
{
	table[slot(key)] = value;
}
