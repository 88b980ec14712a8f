/*
 * stack_tree.c - calls aggregated by stack (see stack_tree.h).
 */
#include "stack_tree.h"

#include <stdlib.h>
#include <string.h>

static uint32_t slot_of(uint32_t parent, uint64_t key, uint32_t nslots)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) ^ (parent * 0xc2b2ae3d27d4eb4full);
	return (uint32_t)((h ^ (h >> 29)) & (nslots - 1));
}

static void place(struct stack_tree *t, uint32_t i)
{
	uint32_t s = slot_of(t->nodes[i].parent, t->nodes[i].key, t->nslots);
	while (t->slots[s])
		s = (s + 1) & (t->nslots - 1);
	t->slots[s] = i;
}

static int grow_slots(struct stack_tree *t)
{
	uint32_t nslots = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -1;
	free(t->slots);
	t->slots = slots;
	t->nslots = nslots;
	for (uint32_t i = 1; i < t->nnodes; i++)
		place(t, i);
	return 0;
}

int stack_tree_init(struct stack_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->cap_nodes = 256;
	t->nodes = malloc(t->cap_nodes * sizeof(*t->nodes));
	if (!t->nodes || grow_slots(t) < 0) {
		stack_tree_free(t);
		return -1;
	}
	t->nodes[0] = (struct stack_tree_node){0};
	t->nnodes = 1;
	return 0;
}

void stack_tree_reset(struct stack_tree *t)
{
	if (t->nnodes * 8 < t->nslots) {
		for (uint32_t i = 1; i < t->nnodes; i++) {
			uint32_t s = slot_of(t->nodes[i].parent, t->nodes[i].key, t->nslots);
			while (t->slots[s] != i)
				s = (s + 1) & (t->nslots - 1);
			t->slots[s] = 0;
		}
	} else {
		memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	}
	t->nodes[0] = (struct stack_tree_node){0};
	t->nnodes = 1;
}

static uint32_t new_node(struct stack_tree *t, uint32_t parent, uint64_t key,
			 const struct symbol *sym)
{
	if (t->nnodes == t->cap_nodes) {
		uint32_t cap = t->cap_nodes * 2;
		struct stack_tree_node *n = realloc(t->nodes, cap * sizeof(*n));
		if (!n)
			return 0;
		t->nodes = n;
		t->cap_nodes = cap;
	}
	if ((t->nnodes + 1) * 2 > t->nslots && grow_slots(t) < 0)
		return 0;
	uint32_t i = t->nnodes++;
	t->nodes[i] = (struct stack_tree_node){.key = key, .sym = sym, .parent = parent};
	struct stack_tree_node *p = &t->nodes[parent];
	if (p->last_child)
		t->nodes[p->last_child].next_sibling = i;
	else
		p->first_child = i;
	p->last_child = i;
	place(t, i);
	return i;
}

uint32_t stack_tree_child(struct stack_tree *t, uint32_t parent, uint64_t key,
			  const struct symbol *sym)
{
	for (uint32_t s = slot_of(parent, key, t->nslots); t->slots[s];
	     s = (s + 1) & (t->nslots - 1)) {
		const struct stack_tree_node *n = &t->nodes[t->slots[s]];
		if (n->key == key && n->parent == parent)
			return t->slots[s];
	}
	return new_node(t, parent, key, sym);
}

int stack_tree_merge(struct stack_tree *dst, uint32_t to, const struct stack_tree *src,
		     uint32_t from)
{
	/* Pairs (src node, dst parent), breadth first: a queue keeps the
	 * children in the order they first happened. */
	uint32_t *todo = NULL;
	size_t n = 0, head = 0, cap = 0;
	int rc = 0;
	for (uint32_t c = src->nodes[from].first_child; c; c = src->nodes[c].next_sibling) {
		if (n + 2 > cap) {
			cap = cap ? cap * 2 : 64;
			uint32_t *t = realloc(todo, cap * sizeof(*t));
			if (!t)
				goto oom;
			todo = t;
		}
		todo[n++] = c;
		todo[n++] = to;
	}
	while (head < n) {
		uint32_t node = todo[head], parent = todo[head + 1];
		head += 2;
		const struct stack_tree_node *s = &src->nodes[node];
		uint32_t d = stack_tree_child(dst, parent, s->key, s->sym);
		if (!d)
			goto oom;
		dst->nodes[d].calls += s->calls;
		dst->nodes[d].total_ns += s->total_ns;
		for (uint32_t c = s->first_child; c; c = src->nodes[c].next_sibling) {
			if (n + 2 > cap) {
				cap = cap ? cap * 2 : 64;
				uint32_t *t = realloc(todo, cap * sizeof(*t));
				if (!t)
					goto oom;
				todo = t;
			}
			todo[n++] = c;
			todo[n++] = d;
		}
	}
	free(todo);
	return rc;
oom:
	free(todo);
	return -1;
}

void stack_tree_free(struct stack_tree *t)
{
	free(t->nodes);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
