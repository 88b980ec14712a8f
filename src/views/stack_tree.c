/*
 * stack_tree.c - calls aggregated by stack (see stack_tree.h).
 */
#include "stack_tree.h"
#include "../utils/array.h"

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

/* Pairs (src node, dst parent) waiting to be merged, breadth first: a
 * queue keeps the children in the order they first happened. */
struct merge_queue {
	uint32_t *pairs;
	size_t n, head, cap;
};

/* Queues the children of src node `node` under dst node `parent`; 0 or -1. */
static int queue_children(struct merge_queue *q, const struct stack_tree *src, uint32_t node,
			  uint32_t parent)
{
	for (uint32_t c = src->nodes[node].first_child; c; c = src->nodes[c].next_sibling) {
		if (!ARRAY_RESERVE(q->pairs, q->n + 1, q->cap, 64))
			return -1;
		q->pairs[q->n++] = c;
		q->pairs[q->n++] = parent;
	}
	return 0;
}

int stack_tree_merge(struct stack_tree *dst, uint32_t to, const struct stack_tree *src,
		     uint32_t from)
{
	struct merge_queue q = {0};
	int rc = queue_children(&q, src, from, to);
	while (rc == 0 && q.head < q.n) {
		uint32_t node = q.pairs[q.head], parent = q.pairs[q.head + 1];
		q.head += 2;
		const struct stack_tree_node *s = &src->nodes[node];
		uint32_t d = stack_tree_child(dst, parent, s->key, s->sym);
		if (!d) {
			rc = -1;
			break;
		}
		dst->nodes[d].calls += s->calls;
		dst->nodes[d].total_ns += s->total_ns;
		dst->nodes[d].unfinished += s->unfinished;
		rc = queue_children(&q, src, node, d);
	}
	free(q.pairs);
	return rc;
}

void stack_tree_free(struct stack_tree *t)
{
	free(t->nodes);
	free(t->slots);
	memset(t, 0, sizeof(*t));
}
