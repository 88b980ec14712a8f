/*
 * callgraph_model.h - the call graph the walker stream adds up, shared by
 * its writers (callgraph_dot.c, callgraph_svg.c): one node per function,
 * grouped by module, one edge per (caller, callee) pair with the number of
 * calls and their total time.  Times of recursive calls are counted once,
 * at the outermost call.  A node counts its calls entered before a ring's
 * kept calls and those unfinished: their times are cut short.
 */
#ifndef CALLTRACE_CALLGRAPH_MODEL_H
#define CALLTRACE_CALLGRAPH_MODEL_H

#include <stdint.h>
#include "views.h"
#include "view_util.h"
#include "view_names.h"

struct cg_node {
	const struct symbol *sym;
	uint32_t module;    /* index into callgraph.modules */
	uint32_t min_depth; /* shallowest depth it was called at */
	uint64_t calls, total_ns, self_ns;
	uint64_t before;     /* calls entered before a ring's kept calls */
	uint64_t unfinished; /* calls with no recorded end */
	uint32_t active;     /* calls of it open on the current stack */
};

struct cg_edge {
	uint32_t caller, callee; /* node indexes */
	uint64_t calls, total_ns;
	uint32_t active;
};

struct cg_frame {
	uint32_t node, edge; /* edge UINT32_MAX for an outermost call */
};

struct callgraph {
	int failed;
	struct cg_node *nodes;
	uint32_t nnodes, cap_nodes;
	struct cg_edge *edges;
	uint32_t nedges, cap_edges;
	uint32_t *edge_slots; /* hash (caller, callee) -> edge + 1 */
	uint32_t nslots;
	char **modules; /* module paths, in order of first appearance */
	uint32_t nmodules;
	struct view_symtab node_of; /* symbol id -> node + 1 */
	struct cg_frame *stack;
	uint32_t cap_stack;
	uint64_t max_total_ns;
	/* callgraph_fold: what it folded; the "other functions" nodes are the
	 * last nother nodes and own their symbols. */
	double fold_share;
	uint32_t fold_max, folded_nodes, folded_edges, nother;
	/* callgraph_settle_names: how functions that would show alike are
	 * told apart (twice(int), twice(double)). */
	struct view_shown_names shown;
};

/* "3 calls, 1.2 ms (self 0.4 ms)" of a node, and after it ", 1 entered
 * before the kept calls, 1 unfinished" when some were. */
const char *cg_node_stats(const struct cg_node *n, char *buf, size_t len);
/* "3 calls\n1.2 ms" of an edge, with `newline` between the two. */
const char *cg_edge_label(const struct cg_edge *e, const char *newline, char *buf, size_t len);
/* The name node `n` shows. */
const char *cg_node_name(const struct callgraph *g, const struct cg_node *n);
/* How hot a node is: its total time over the largest one, 0..1. */
double cg_node_heat(const struct callgraph *g, const struct cg_node *n);

#endif
