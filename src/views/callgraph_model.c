/*
 * callgraph_model.c - adds the walker stream up into the call graph of
 * callgraph_model.h.  Memory: the distinct functions and caller/callee
 * pairs, and a stack as deep as the calls.
 */
#include <stdlib.h>
#include <string.h>
#include "callgraph_model.h"
#include "../utils/array.h"

#define NO_EDGE UINT32_MAX

static uint32_t module_index(struct callgraph *g, const char *path)
{
	for (uint32_t i = 0; i < g->nmodules; i++)
		if (strcmp(g->modules[i], path) == 0)
			return i;
	char **m = realloc(g->modules, (g->nmodules + 1) * sizeof(*m));
	if (!m)
		return 0;
	g->modules = m;
	m[g->nmodules] = strdup(path);
	if (!m[g->nmodules])
		return 0;
	return g->nmodules++;
}

static uint32_t node_of(struct callgraph *g, const struct symbol *s, uint32_t depth)
{
	void **slot = view_symtab_slot(&g->node_of, s->id);
	if (!slot)
		return NO_EDGE;
	if (*slot) {
		struct cg_node *n = &g->nodes[(uintptr_t)*slot - 1];
		if (depth < n->min_depth)
			n->min_depth = depth;
		return (uint32_t)(uintptr_t)*slot - 1;
	}
	if (!ARRAY_RESERVE(g->nodes, g->nnodes, g->cap_nodes, 64))
		return NO_EDGE;
	g->nodes[g->nnodes] = (struct cg_node){
	    .sym = s, .module = module_index(g, s->module ? s->module : "?"), .min_depth = depth};
	*slot = (void *)(uintptr_t)(g->nnodes + 1);
	return g->nnodes++;
}

static uint32_t edge_slot(uint32_t caller, uint32_t callee, uint32_t nslots)
{
	uint64_t h = ((uint64_t)caller << 32 | callee) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 40) & (nslots - 1);
}

static int grow_edge_slots(struct callgraph *g)
{
	uint32_t nslots = g->nslots ? g->nslots * 2 : 256;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t i = 0; i < g->nedges; i++) {
		uint32_t s = edge_slot(g->edges[i].caller, g->edges[i].callee, nslots);
		while (slots[s])
			s = (s + 1) & (nslots - 1);
		slots[s] = i + 1;
	}
	free(g->edge_slots);
	g->edge_slots = slots;
	g->nslots = nslots;
	return 0;
}

static uint32_t edge_of(struct callgraph *g, uint32_t caller, uint32_t callee)
{
	if ((g->nedges + 1) * 2 > g->nslots && grow_edge_slots(g) < 0)
		return NO_EDGE;
	uint32_t s = edge_slot(caller, callee, g->nslots);
	for (; g->edge_slots[s]; s = (s + 1) & (g->nslots - 1)) {
		struct cg_edge *e = &g->edges[g->edge_slots[s] - 1];
		if (e->caller == caller && e->callee == callee)
			return g->edge_slots[s] - 1;
	}
	if (!ARRAY_RESERVE(g->edges, g->nedges, g->cap_edges, 64))
		return NO_EDGE;
	g->edges[g->nedges] = (struct cg_edge){.caller = caller, .callee = callee};
	g->edge_slots[s] = g->nedges + 1;
	return g->nedges++;
}

static void on_call(void *ctx, const struct walk_event *ev)
{
	struct callgraph *g = ctx;
	if (ev->depth >= g->cap_stack) {
		uint32_t cap = g->cap_stack ? g->cap_stack : 64;
		while (cap <= ev->depth)
			cap *= 2;
		struct cg_frame *s = realloc(g->stack, cap * sizeof(*s));
		if (!s) {
			g->failed = 1;
			return;
		}
		g->stack = s;
		g->cap_stack = cap;
	}
	struct cg_frame *f = &g->stack[ev->depth];
	f->node = node_of(g, ev->sym, ev->depth);
	f->edge = NO_EDGE;
	if (f->node == NO_EDGE) {
		g->failed = 1;
		return;
	}
	g->nodes[f->node].active++;
	if (ev->depth && g->stack[ev->depth - 1].node != NO_EDGE) {
		f->edge = edge_of(g, g->stack[ev->depth - 1].node, f->node);
		if (f->edge == NO_EDGE)
			g->failed = 1;
		else
			g->edges[f->edge].active++;
	}
}

static void on_leave(void *ctx, const struct walk_event *ev)
{
	struct callgraph *g = ctx;
	if (ev->depth >= g->cap_stack || g->stack[ev->depth].node == NO_EDGE)
		return;
	struct cg_frame *f = &g->stack[ev->depth];
	struct cg_node *n = &g->nodes[f->node];
	n->calls++;
	n->before += ev->entered_before != 0;
	n->unfinished += ev->unfinished != 0;
	n->self_ns += ev->duration_ns > ev->child_ns ? ev->duration_ns - ev->child_ns : 0;
	if (--n->active == 0) {
		n->total_ns += ev->duration_ns;
		if (n->total_ns > g->max_total_ns)
			g->max_total_ns = n->total_ns;
	}
	if (f->edge != NO_EDGE) {
		struct cg_edge *e = &g->edges[f->edge];
		e->calls++;
		if (--e->active == 0)
			e->total_ns += ev->duration_ns;
	}
	f->node = NO_EDGE;
}

struct callgraph *callgraph_new(void)
{
	return calloc(1, sizeof(struct callgraph));
}

void callgraph_consumer(struct callgraph *g, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = g;
	c->enter = on_call;
	c->exit = on_leave;
}

int callgraph_status(const struct callgraph *g)
{
	return g->failed ? -1 : 0;
}

const char *cg_node_stats(const struct cg_node *n, char *buf, size_t len)
{
	char total[32], self[32];
	char before[64] = "", unfinished[48] = "";
	if (n->before)
		snprintf(before, sizeof(before), ", %llu entered before the kept calls",
			 (unsigned long long)n->before);
	if (n->unfinished)
		snprintf(unfinished, sizeof(unfinished), ", %llu unfinished",
			 (unsigned long long)n->unfinished);
	snprintf(buf, len, "%llu call%s, %s (self %s)%s%s", (unsigned long long)n->calls,
		 n->calls == 1 ? "" : "s", view_duration(n->total_ns, total, sizeof(total)),
		 view_duration(n->self_ns, self, sizeof(self)), before, unfinished);
	return buf;
}

const char *cg_edge_label(const struct cg_edge *e, const char *newline, char *buf, size_t len)
{
	char total[32];
	snprintf(buf, len, "%llu call%s%s%s", (unsigned long long)e->calls,
		 e->calls == 1 ? "" : "s", newline,
		 view_duration(e->total_ns, total, sizeof(total)));
	return buf;
}

double cg_node_heat(const struct callgraph *g, const struct cg_node *n)
{
	return g->max_total_ns ? (double)n->total_ns / (double)g->max_total_ns : 0.0;
}

int callgraph_settle_names(struct callgraph *g)
{
	uint32_t real = g->nnodes - g->nother; /* "other functions" are no symbol's */
	const struct symbol **syms = malloc((real ? real : 1) * sizeof(*syms));
	if (!syms)
		return -1;
	for (uint32_t i = 0; i < real; i++)
		syms[i] = g->nodes[i].sym;
	int rc = view_shown_names_settle(&g->shown, syms, real);
	free(syms);
	return rc;
}

const char *cg_node_name(const struct callgraph *g, const struct cg_node *n)
{
	if ((uint32_t)(n - g->nodes) >= g->nnodes - g->nother)
		return n->sym->name;
	return view_shown_name(&g->shown, n->sym);
}

void callgraph_free(struct callgraph *g)
{
	if (!g)
		return;
	view_shown_names_free(&g->shown);
	for (uint32_t i = 0; i < g->nmodules; i++)
		free(g->modules[i]);
	free(g->modules);
	for (uint32_t i = g->nnodes - g->nother; i < g->nnodes; i++)
		free((void *)g->nodes[i].sym);
	free(g->nodes);
	free(g->edges);
	free(g->edge_slots);
	free(g->stack);
	view_symtab_free(&g->node_of, NULL);
	free(g);
}
