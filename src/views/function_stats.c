/*
 * function_stats.c - per-function statistics over the walker's stream
 * (function_stats.h).
 *
 * Total time counts a recursive function once per outermost call (the time
 * of inner calls is already inside), so totals never exceed the run.  Self
 * time is a call's duration less its shown children's.  On-CPU time is a
 * call's duration less the off-CPU intervals shown inside it, at any depth
 * (counted like total time: once per outermost call).  The average is a
 * call's mean duration over every call, inner recursive ones included, as
 * Min and Max are: total time / calls would put it below Min for a
 * recursive function.
 */
#include "function_stats.h"
#include "../format/trace_format.h"
#include "view_util.h"

#include <stdlib.h>
#include <string.h>

struct function_table {
	struct view_symtab stats; /* struct function_stats by symbol id */
	uint64_t *offcpu_in;	  /* per depth: off-CPU time inside the open call */
	size_t depths;
	int has_offcpu;
};

struct function_table *function_table_new(void)
{
	return calloc(1, sizeof(struct function_table));
}

void function_table_free(struct function_table *ft)
{
	if (ft) {
		view_symtab_free(&ft->stats, free);
		free(ft->offcpu_in);
	}
	free(ft);
}

int function_table_has_offcpu(const struct function_table *ft)
{
	return ft->has_offcpu;
}

static struct function_stats *stats_of(struct function_table *ft, const struct symbol *sym)
{
	void **slot = view_symtab_slot(&ft->stats, sym->id);
	if (slot && !*slot && (*slot = calloc(1, sizeof(struct function_stats)))) {
		struct function_stats *s = *slot;
		s->sym = sym;
		s->min_ns = UINT64_MAX;
	}
	if (!slot || !*slot)
		abort();
	return *slot;
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct function_table *ft = ctx;
	stats_of(ft, e->sym)->active++;
	if (e->depth >= ft->depths) {
		size_t n = (e->depth + 1) * 2;
		uint64_t *a = realloc(ft->offcpu_in, n * sizeof(*a));
		if (!a)
			abort();
		ft->offcpu_in = a;
		ft->depths = n;
	}
	ft->offcpu_in[e->depth] = 0;
}

/* The off-CPU time inside the call that ends, passed on to its caller. */
static uint64_t offcpu_inside(struct function_table *ft, const struct walk_event *e)
{
	uint64_t inside = e->depth < ft->depths ? ft->offcpu_in[e->depth] : 0;
	if (e->sym->kind == CALL_OFFCPU) {
		inside = e->duration_ns;
		ft->has_offcpu = 1;
	}
	if (inside > e->duration_ns)
		inside = e->duration_ns;
	if (e->depth > 0 && e->depth - 1 < ft->depths)
		ft->offcpu_in[e->depth - 1] += inside;
	return inside;
}

static void on_exit_event(void *ctx, const struct walk_event *e)
{
	struct function_stats *s = stats_of(ctx, e->sym);
	uint64_t offcpu = offcpu_inside(ctx, e);
	s->calls++;
	s->sum_ns += e->duration_ns;
	s->before += e->entered_before != 0;
	s->unfinished += e->unfinished != 0;
	if (--s->active == 0) {
		s->total_ns += e->duration_ns;
		s->oncpu_ns += e->duration_ns - offcpu;
	}
	s->self_ns += e->duration_ns > e->child_ns ? e->duration_ns - e->child_ns : 0;
	if (e->duration_ns < s->min_ns)
		s->min_ns = e->duration_ns;
	if (e->duration_ns > s->max_ns)
		s->max_ns = e->duration_ns;
}

void function_table_consumer(struct function_table *ft, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = ft;
	c->enter = on_call;
	c->exit = on_exit_event;
}

struct function_stats **function_table_rows(const struct function_table *ft, size_t *n)
{
	struct function_stats **rows = malloc((ft->stats.len + 1) * sizeof(*rows));
	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < ft->stats.len; i++) {
		struct function_stats *s = ft->stats.slots[i];
		if (s && s->calls)
			rows[(*n)++] = s;
	}
	return rows;
}

uint64_t function_stats_value(const struct function_stats *s, enum report_sort key)
{
	switch (key) {
	case SORT_TOTAL:
		return s->total_ns;
	case SORT_SELF:
		return s->self_ns;
	case SORT_CALLS:
		return s->calls;
	case SORT_AVG:
		return s->calls ? s->sum_ns / s->calls : 0;
	case SORT_MIN:
		return s->calls ? s->min_ns : 0;
	case SORT_MAX:
		return s->max_ns;
	case SORT_ONCPU:
		return s->oncpu_ns;
	case SORT_NAME:
		break;
	}
	return 0;
}

static const char *const sort_names[] = {"total", "self", "calls", "avg",
					 "min",	  "max",  "name",  "oncpu"};

int report_sort_parse(const char *name)
{
	for (int i = 0; i < (int)(sizeof(sort_names) / sizeof(sort_names[0])); i++)
		if (strcmp(name, sort_names[i]) == 0)
			return i;
	return -1;
}

const char *report_sort_name(enum report_sort key)
{
	return sort_names[key];
}
