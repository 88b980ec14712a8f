/*
 * report_table.c - per-function statistics, like `uftrace report`: calls,
 * total time, self time, average, min and max per call.
 *
 * Total time counts a recursive function once per outermost call (the time
 * of inner calls is already inside), so totals never exceed the run.  Self
 * time is a call's duration less its shown children's.
 */
#include "text_views.h"
#include "view_util.h"

#include <stdlib.h>
#include <string.h>

struct function_stats {
	const struct symbol *sym;
	uint64_t calls, total_ns, self_ns, min_ns, max_ns;
	uint32_t active; /* calls of it open right now (recursion) */
};

struct report {
	struct view_symtab stats; /* struct function_stats by symbol id */
};

struct report *report_new(void)
{
	return calloc(1, sizeof(struct report));
}

void report_free(struct report *rp)
{
	if (rp)
		view_symtab_free(&rp->stats, free);
	free(rp);
}

static struct function_stats *stats_of(struct report *rp, const struct symbol *sym)
{
	void **slot = view_symtab_slot(&rp->stats, sym->id);
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
	stats_of(ctx, e->sym)->active++;
}

static void on_exit_event(void *ctx, const struct walk_event *e)
{
	struct function_stats *s = stats_of(ctx, e->sym);
	s->calls++;
	if (--s->active == 0)
		s->total_ns += e->duration_ns;
	s->self_ns += e->duration_ns > e->child_ns ? e->duration_ns - e->child_ns : 0;
	if (e->duration_ns < s->min_ns)
		s->min_ns = e->duration_ns;
	if (e->duration_ns > s->max_ns)
		s->max_ns = e->duration_ns;
}

void report_consumer(struct report *rp, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = rp;
	c->enter = on_call;
	c->exit = on_exit_event;
}

static enum report_sort sort_key;

static uint64_t sort_value(const struct function_stats *s)
{
	switch (sort_key) {
	case SORT_SELF:
		return s->self_ns;
	case SORT_CALLS:
		return s->calls;
	case SORT_AVG:
		return s->calls ? s->total_ns / s->calls : 0;
	case SORT_MIN:
		return s->min_ns;
	case SORT_MAX:
		return s->max_ns;
	default:
		return s->total_ns;
	}
}

static int compare_stats(const void *a, const void *b)
{
	const struct function_stats *x = *(const struct function_stats *const *)a;
	const struct function_stats *y = *(const struct function_stats *const *)b;
	if (sort_key != SORT_NAME) {
		uint64_t vx = sort_value(x), vy = sort_value(y);
		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	return strcmp(x->sym->name, y->sym->name);
}

int report_sort_parse(const char *name)
{
	static const char *names[] = {"total", "self", "calls", "avg", "min", "max", "name"};
	for (int i = 0; i < 7; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

void report_write(struct report *rp, FILE *out, enum report_sort sort, size_t limit)
{
	size_t n = 0;
	struct function_stats **rows = malloc((rp->stats.len + 1) * sizeof(*rows));
	for (size_t i = 0; i < rp->stats.len; i++) {
		struct function_stats *s = rp->stats.slots[i];
		if (s && s->calls)
			rows[n++] = s;
	}
	sort_key = sort;
	qsort(rows, n, sizeof(*rows), compare_stats);
	fprintf(out, "  %10s  %10s  %10s  %10s  %10s  %10s  %s\n", "Total time", "Self time",
		"Calls", "Avg", "Min", "Max", "Function");
	fprintf(out, "  ==========  ==========  ==========  ==========  ==========  ==========  "
		     "====================\n");
	for (size_t i = 0; i < n && (!limit || i < limit); i++) {
		const struct function_stats *s = rows[i];
		char t[32], self[32], avg[32], mn[32], mx[32];
		fprintf(out, "  %10s  %10s  %10llu  %10s  %10s  %10s  %s\n",
			view_duration(s->total_ns, t, sizeof(t)),
			view_duration(s->self_ns, self, sizeof(self)), (unsigned long long)s->calls,
			view_duration(s->total_ns / s->calls, avg, sizeof(avg)),
			view_duration(s->min_ns, mn, sizeof(mn)),
			view_duration(s->max_ns, mx, sizeof(mx)), s->sym->name);
	}
	free(rows);
}
