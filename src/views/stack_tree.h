/*
 * stack_tree.h - calls aggregated by stack: one node per distinct path of
 * functions (a hash of (parent node, key) finds it), children in the order
 * they first happened.  The merged flame graph and the merged frames of the
 * ordered flame chart are drawn from it.
 */
#ifndef CALLTRACE_STACK_TREE_H
#define CALLTRACE_STACK_TREE_H

#include <stdint.h>
#include "../symbols/symbols.h"

struct stack_tree_node {
	uint64_t key; /* usually the symbol id */
	const struct symbol *sym;
	uint32_t parent;				/* 0 is the root */
	uint32_t first_child, last_child, next_sibling; /* 0: none */
	uint64_t calls, total_ns;
	uint64_t unfinished; /* of the calls, those without a recorded end */
};

struct stack_tree {
	struct stack_tree_node *nodes; /* [0] is the root */
	uint32_t nnodes, cap_nodes;
	uint32_t *slots; /* open addressing: node index, 0 empty */
	uint32_t nslots;
};

/* 0, or -1 when out of memory. */
int stack_tree_init(struct stack_tree *t);
/* Back to the root alone, keeping the memory: costs the nodes in use. */
void stack_tree_reset(struct stack_tree *t);
/* The child of `parent` for `key`, made on first use; 0 when out of memory. */
uint32_t stack_tree_child(struct stack_tree *t, uint32_t parent, uint64_t key,
			  const struct symbol *sym);
/* Adds the subtree of src's node `from` (its calls and time, and those of
 * everything beneath it) under dst's node `to`; 0, or -1 when out of
 * memory.  src and dst differ. */
int stack_tree_merge(struct stack_tree *dst, uint32_t to, const struct stack_tree *src,
		     uint32_t from);
void stack_tree_free(struct stack_tree *t);

#endif
