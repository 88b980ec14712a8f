/*
 * callgraph_fold.c - keeps a big program's call graph readable: functions
 * that take less than a share of the time (and, beyond a maximum number of
 * functions, the lightest) are folded into one "other functions" node per
 * module; their edges are added up into edges to and from it, and edges
 * between two folded functions go.  The graph says what was folded.
 */
#include <stdlib.h>
#include <string.h>
#include "callgraph_model.h"

#define FOLDED UINT32_MAX

static int heavier(const void *a, const void *b, void *ctx)
{
	const struct cg_node *n = ctx;
	uint64_t x = n[*(const uint32_t *)a].total_ns, y = n[*(const uint32_t *)b].total_ns;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* Which nodes stay: 1 in keep[] (0 for folded). */
static int choose(const struct callgraph *g, double share, uint32_t max_nodes, uint8_t *keep)
{
	uint64_t floor = (uint64_t)((double)g->max_total_ns * share);
	uint32_t *order = malloc((g->nnodes ? g->nnodes : 1) * sizeof(*order));
	if (!order)
		return -1;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->nnodes; i++)
		if (g->nodes[i].total_ns >= floor || g->nodes[i].min_depth == 0)
			order[n++] = i;
	qsort_r(order, n, sizeof(*order), heavier, g->nodes);
	memset(keep, 0, g->nnodes);
	for (uint32_t i = 0; i < n && (!max_nodes || i < max_nodes); i++)
		keep[order[i]] = 1;
	free(order);
	return 0;
}

/* The "other functions" node of a module, made on first use. */
static uint32_t other_of(struct callgraph *g, struct cg_node *nodes, uint32_t *n, uint32_t *others,
			 uint32_t module)
{
	if (others[module] != FOLDED)
		return others[module];
	struct symbol *s = calloc(1, sizeof(*s));
	if (!s)
		return FOLDED;
	s->name = "other functions";
	s->module = g->modules[module];
	nodes[*n] = (struct cg_node){.sym = s, .module = module, .min_depth = UINT32_MAX};
	others[module] = *n;
	return (*n)++;
}

static int fold_nodes(struct callgraph *g, const uint8_t *keep, uint32_t *map)
{
	struct cg_node *nodes = calloc(g->nnodes + g->nmodules + 1, sizeof(*nodes));
	uint32_t *others = malloc((g->nmodules + 1) * sizeof(*others));
	if (!nodes || !others) {
		free(nodes);
		free(others);
		return -1;
	}
	memset(others, 0xff, (g->nmodules + 1) * sizeof(*others));
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->nnodes; i++)
		if (keep[i]) {
			map[i] = n;
			nodes[n++] = g->nodes[i];
		}
	for (uint32_t i = 0; i < g->nnodes; i++) {
		if (keep[i])
			continue;
		const struct cg_node *old = &g->nodes[i];
		uint32_t o = other_of(g, nodes, &n, others, old->module);
		if (o == FOLDED) {
			free(nodes);
			free(others);
			return -1;
		}
		map[i] = o;
		nodes[o].calls += old->calls;
		nodes[o].before += old->before;
		nodes[o].unfinished += old->unfinished;
		nodes[o].total_ns += old->total_ns;
		if (nodes[o].total_ns > g->max_total_ns) /* nested calls counted twice */
			nodes[o].total_ns = g->max_total_ns;
		nodes[o].self_ns += old->self_ns;
		nodes[o].min_depth =
		    old->min_depth < nodes[o].min_depth ? old->min_depth : nodes[o].min_depth;
		g->folded_nodes++;
	}
	free(others);
	free(g->nodes);
	g->nodes = nodes;
	g->nother = n - (g->nnodes - g->folded_nodes);
	g->nnodes = n;
	g->cap_nodes = g->nnodes + g->nmodules + 1;
	return 0;
}

/* Edges between the new nodes, added up; edges within one "other" go, and
 * so do those to or from one that, added up, still take less than `floor`
 * of the time: a hub of thin edges would tangle the graph again. */
static void fold_edges(struct callgraph *g, const uint32_t *map, uint32_t first_other,
		       uint64_t floor)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->nedges; i++) {
		struct cg_edge e = g->edges[i];
		e.caller = map[e.caller];
		e.callee = map[e.callee];
		if (e.caller >= first_other || e.callee >= first_other) {
			g->folded_edges++;
			if (e.caller == e.callee)
				continue;
			uint32_t j = 0;
			while (j < n &&
			       !(g->edges[j].caller == e.caller && g->edges[j].callee == e.callee))
				j++;
			if (j < n) {
				g->edges[j].calls += e.calls;
				g->edges[j].total_ns += e.total_ns;
				continue;
			}
		}
		g->edges[n++] = e;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct cg_edge *e = &g->edges[i];
		if ((e->caller >= first_other || e->callee >= first_other) && e->total_ns < floor)
			continue;
		g->edges[kept++] = *e;
	}
	g->nedges = kept;
	free(g->edge_slots); /* no more edges are added */
	g->edge_slots = NULL;
	g->nslots = 0;
}

int callgraph_fold(struct callgraph *g, double share, uint32_t max_nodes, uint32_t small)
{
	if (g->nnodes <= small)
		return 0;
	g->fold_share = share;
	g->fold_max = max_nodes;
	uint8_t *keep = malloc(g->nnodes ? g->nnodes : 1);
	uint32_t *map = malloc((g->nnodes ? g->nnodes : 1) * sizeof(*map));
	if (!keep || !map || choose(g, share, max_nodes, keep) < 0) {
		free(keep);
		free(map);
		return -1;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < g->nnodes; i++)
		kept += keep[i];
	int rc = 0;
	if (kept < g->nnodes) {
		rc = fold_nodes(g, keep, map);
		if (rc == 0)
			fold_edges(g, map, kept, (uint64_t)((double)g->max_total_ns * share));
	}
	free(keep);
	free(map);
	return rc;
}

const char *callgraph_fold_note(const struct callgraph *g, char *buf, size_t len)
{
	if (!g->folded_nodes) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, len,
		 "%u functions under %g%% of the time%s folded into \"other functions\" "
		 "(%u edges, those under it left out); --all shows everything, --min-share and "
		 "--max-nodes choose",
		 g->folded_nodes, g->fold_share * 100, g->fold_max ? " or past the heaviest" : "",
		 g->folded_edges);
	return buf;
}
