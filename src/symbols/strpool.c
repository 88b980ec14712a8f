/*
 * strpool.c - interned strings for the symbol table: each distinct string is
 * stored once in large blocks and freed with the pool.
 */
#include <stdlib.h>
#include <string.h>
#include "symbols_internal.h"
#include "../utils/string_hash.h"

#define BLOCK_SIZE (64 * 1024)

struct block {
	struct block *next;
	size_t used, size;
	char data[];
};

struct strpool {
	struct block *blocks;
	const char **slots; /* open addressing; NULL = empty */
	uint32_t *hashes;
	size_t nslots, count;
};

struct strpool *strpool_new(void)
{
	return calloc(1, sizeof(struct strpool));
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	while (p->blocks) {
		struct block *next = p->blocks->next;
		free(p->blocks);
		p->blocks = next;
	}
	free(p->slots);
	free(p->hashes);
	free(p);
}

static char *pool_store(struct strpool *p, const char *s, size_t len)
{
	struct block *b = p->blocks;
	if (!b || b->size - b->used < len + 1) {
		size_t size = len + 1 > BLOCK_SIZE ? len + 1 : BLOCK_SIZE;
		b = malloc(sizeof(*b) + size);
		if (!b)
			return NULL;
		b->used = 0;
		b->size = size;
		/* A full-size block becomes the current one; an oversized string
		 * gets a block of its own kept behind it. */
		if (p->blocks && size > BLOCK_SIZE) {
			b->next = p->blocks->next;
			p->blocks->next = b;
		} else {
			b->next = p->blocks;
			p->blocks = b;
		}
	}
	char *copy = b->data + b->used;
	memcpy(copy, s, len + 1);
	b->used += len + 1;
	return copy;
}

static int pool_grow(struct strpool *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 256;
	const char **slots = calloc(n, sizeof(*slots));
	uint32_t *hashes = calloc(n, sizeof(*hashes));
	if (!slots || !hashes) {
		free(slots);
		free(hashes);
		return -1;
	}
	for (size_t i = 0; i < p->nslots; i++) {
		if (!p->slots[i])
			continue;
		size_t j = p->hashes[i] & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = p->slots[i];
		hashes[j] = p->hashes[i];
	}
	free(p->slots);
	free(p->hashes);
	p->slots = slots;
	p->hashes = hashes;
	p->nslots = n;
	return 0;
}

const char *strpool_intern(struct strpool *p, const char *s)
{
	if ((p->count + 1) * 2 > p->nslots && pool_grow(p) < 0)
		return NULL;
	uint32_t h = string_hash(s);
	size_t i = h & (p->nslots - 1);
	for (; p->slots[i]; i = (i + 1) & (p->nslots - 1)) {
		if (p->hashes[i] == h && strcmp(p->slots[i], s) == 0)
			return p->slots[i];
	}
	char *copy = pool_store(p, s, strlen(s));
	if (!copy)
		return NULL;
	p->slots[i] = copy;
	p->hashes[i] = h;
	p->count++;
	return copy;
}
