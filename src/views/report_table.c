/*
 * report_table.c - per-function statistics, like `uftrace report`: calls,
 * total time, self time, average, min and max per call (function_stats.c
 * gathers them), as a sorted table.  When the trace has off-CPU intervals
 * an On-CPU column tells how much of the total time the calls ran.  Calls
 * of other kinds are named as replay names them ("read@libc.so.6",
 * "[syscall] read", "off-cpu:blocked"); grouped by kind, each kind's rows
 * come under a line with the kind's totals:
 *
 *   # syscall: 2 functions, 3 calls, self time 1.200 ms
 *
 * Rows that would show alike are told apart (view_names.c): an overload by
 * its parameter list, a same-named static function by its file.  Under the
 * table, the functions with calls entered before a ring's kept calls or
 * unfinished (their times are cut short) have a line each.
 */
#include "text_views.h"
#include "call_kind.h"
#include "view_names.h"
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
static int sort_by_kind;

static int compare_stats(const void *a, const void *b)
{
	const struct function_stats *x = *(const struct function_stats *const *)a;
	const struct function_stats *y = *(const struct function_stats *const *)b;
	if (sort_by_kind && x->sym->kind != y->sym->kind)
		return x->sym->kind < y->sym->kind ? -1 : 1;
	if (sort_key != SORT_NAME) {
		uint64_t vx = function_stats_value(x, sort_key),
			 vy = function_stats_value(y, sort_key);
		if (vx != vy)
			return vx > vy ? -1 : 1;
	}
	return strcmp(x->sym->name, y->sym->name);
}

static void write_header(FILE *out, int oncpu)
{
	fprintf(out, "  %10s  ", "Total time");
	if (oncpu)
		fprintf(out, "%10s  ", "On-CPU");
	fprintf(out, "%10s  %10s  %10s  %10s  %10s  %s\n", "Self time", "Calls", "Avg", "Min",
		"Max", "Function");
	fprintf(out,
		"  ==========  %s==========  ==========  ==========  ==========  ==========  "
		"====================\n",
		oncpu ? "==========  " : "");
}

static void write_row(FILE *out, const struct function_stats *s, unsigned how, int oncpu)
{
	char t[32], on[32], self[32], avg[32], mn[32], mx[32], name[1024];
	fprintf(out, "  %10s  ", view_duration(s->total_ns, t, sizeof(t)));
	if (oncpu)
		fprintf(out, "%10s  ", view_duration(s->oncpu_ns, on, sizeof(on)));
	fprintf(out, "%10s  %10llu  %10s  %10s  %10s  %s\n",
		view_duration(s->self_ns, self, sizeof(self)), (unsigned long long)s->calls,
		view_duration(function_stats_value(s, SORT_AVG), avg, sizeof(avg)),
		view_duration(s->min_ns, mn, sizeof(mn)), view_duration(s->max_ns, mx, sizeof(mx)),
		view_name_told_apart(s->sym, how, name, sizeof(name)));
}

/* "# library: 2 functions, 5 calls, self time 30.000 us", for the rows of
 * one kind, rows[0..n). */
static void write_kind_line(FILE *out, struct function_stats *const *rows, size_t n)
{
	uint64_t calls = 0, self = 0;
	char buf[32];
	for (size_t i = 0; i < n; i++) {
		calls += rows[i]->calls;
		self += rows[i]->self_ns;
	}
	fprintf(out, "# %s: %zu function%s, %llu call%s, self time %s\n",
		view_kind_label(rows[0]->sym->kind), n, n == 1 ? "" : "s",
		(unsigned long long)calls, calls == 1 ? "" : "s",
		view_duration(self, buf, sizeof(buf)));
}

/* Under the table, a line for each function some of whose calls' times are
 * cut short: entered before a ring's kept calls (their time counts from
 * there), or unfinished (it ends at the thread's last event):
 *
 *   # main: 1 call entered before the kept calls, 1 unfinished
 */
static void write_cut_calls(FILE *out, struct function_stats *const *rows, size_t n,
			    const unsigned char *how)
{
	char name[1024];
	for (size_t i = 0; i < n; i++) {
		const struct function_stats *s = rows[i];
		if (!s->before && !s->unfinished)
			continue;
		fprintf(out, "# %s: ", view_name_told_apart(s->sym, how[i], name, sizeof(name)));
		if (s->before)
			fprintf(out, "%llu call%s entered before the kept calls%s",
				(unsigned long long)s->before, s->before == 1 ? "" : "s",
				s->unfinished ? ", " : "");
		if (s->unfinished)
			fprintf(out, "%llu unfinished", (unsigned long long)s->unfinished);
		putc('\n', out);
	}
}

void report_write(struct report *rp, FILE *out, const struct report_layout *layout)
{
	size_t n;
	struct function_stats **rows = function_table_rows(rp->functions, &n);
	if (!rows)
		abort();
	int oncpu = function_table_has_offcpu(rp->functions);
	sort_key = layout->sort;
	sort_by_kind = layout->by_kind;
	qsort(rows, n, sizeof(*rows), compare_stats);
	const struct symbol **syms = malloc((n ? n : 1) * sizeof(*syms));
	unsigned char *how = malloc(n ? n : 1);
	if (!syms || !how)
		abort();
	for (size_t i = 0; i < n; i++)
		syms[i] = rows[i]->sym;
	view_names_apart(syms, n, how);
	write_header(out, oncpu);
	size_t shown = 0; /* --limit: rows per kind when grouped */
	for (size_t i = 0; i < n; i++) {
		if (layout->by_kind && (i == 0 || rows[i]->sym->kind != rows[i - 1]->sym->kind)) {
			size_t end = i;
			while (end < n && rows[end]->sym->kind == rows[i]->sym->kind)
				end++;
			write_kind_line(out, rows + i, end - i);
			shown = 0;
		}
		if (!layout->limit || shown < layout->limit)
			write_row(out, rows[i], how[i], oncpu);
		shown++;
	}
	write_cut_calls(out, rows, n, how);
	free(how);
	free(syms);
	free(rows);
}
