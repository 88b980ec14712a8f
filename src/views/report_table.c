/*
 * report_table.c - per-function statistics, like `uftrace report`: calls,
 * total time, self time, average, min and max per call (function_stats.c
 * gathers them), as a sorted table.
 */
#include "text_views.h"
#include "view_util.h"

#include <stdlib.h>
#include <string.h>

struct report {
	struct function_table *functions;
};

struct report *report_new(void)
{
	struct report *rp = calloc(1, sizeof(struct report));
	if (rp && !(rp->functions = function_table_new())) {
		free(rp);
		return NULL;
	}
	return rp;
}

void report_free(struct report *rp)
{
	if (rp)
		function_table_free(rp->functions);
	free(rp);
}

void report_consumer(struct report *rp, struct walk_consumer *c)
{
	function_table_consumer(rp->functions, c);
}

static enum report_sort sort_key;

static int compare_stats(const void *a, const void *b)
{
	const struct function_stats *x = *(const struct function_stats *const *)a;
	const struct function_stats *y = *(const struct function_stats *const *)b;
	if (sort_key != SORT_NAME) {
		uint64_t vx = function_stats_value(x, sort_key),
			 vy = function_stats_value(y, sort_key);
		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	return strcmp(x->sym->name, y->sym->name);
}

void report_write(struct report *rp, FILE *out, enum report_sort sort, size_t limit)
{
	size_t n;
	struct function_stats **rows = function_table_rows(rp->functions, &n);
	if (!rows)
		abort();
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
