/*
 * report_diff.c - two traces' per-function statistics side by side
 * (report_diff.h): each function's calls, total and self time in the old
 * trace and the new one and the change, the largest change first.
 *
 * A function is the same in both traces when it has the same name and kind
 * (a library call is named as report names it: "atoi@libc.so.6"); where a
 * name belongs to several functions (static functions of different files,
 * or of different modules), the module and source file (base names) tell
 * which is which, and the table shows them.  Addresses never count: they
 * change from run to run.  Copies of one source function (a static inline
 * of a header) are one function.
 */
#include "report_diff.h"
#include "call_kind.h"
#include "view_util.h"
#include "../format/printable.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* What identifies a function across traces. */
struct function_key {
	const char *name, *module, *file; /* base names; file "" when unknown */
	unsigned kind;			  /* enum trace_call_kind: printf the call
					     and printf the program's own differ */
};

/* A function of one trace; `stats` holds its figures (sym unused). */
struct diff_entry {
	struct function_key key;
	int run; /* 0: old, 1: new */
	struct function_stats stats;
};

/* A line of the table: a function in the old trace and in the new one
 * (calls 0 where it is not). */
struct diff_row {
	struct function_key key;
	int qualify;	 /* its name repeats: show where it is */
	int show_module; /* ... and the module, which differs */
	struct function_stats run[2];
};

static void add_stats(struct function_stats *to, const struct function_stats *s)
{
	if (to->calls == 0 || s->min_ns < to->min_ns)
		to->min_ns = s->min_ns;
	if (s->max_ns > to->max_ns)
		to->max_ns = s->max_ns;
	to->calls += s->calls;
	to->total_ns += s->total_ns;
	to->self_ns += s->self_ns;
	to->oncpu_ns += s->oncpu_ns;
}

static int compare_keys(const struct function_key *a, const struct function_key *b)
{
	int c = strcmp(a->name, b->name);
	if (!c)
		c = (a->kind > b->kind) - (a->kind < b->kind);
	if (!c)
		c = strcmp(a->module, b->module);
	return c ? c : strcmp(a->file, b->file);
}

static int compare_entries(const void *pa, const void *pb)
{
	const struct diff_entry *a = pa, *b = pb;
	int c = compare_keys(&a->key, &b->key);
	return c ? c : a->run - b->run;
}

/* Every function of both runs, sorted by name, module, file and run, with
 * the copies of one function in one run added up; NULL when memory ran out. */
static struct diff_entry *entries_of(const struct diff_run *runs[2], size_t *n)
{
	struct diff_entry *e = malloc((runs[0]->nrows + runs[1]->nrows + 1) * sizeof(*e));
	size_t count = 0, merged = 0;
	if (!e)
		return NULL;
	for (int r = 0; r < 2; r++)
		for (size_t i = 0; i < runs[r]->nrows; i++) {
			const struct symbol *sym = runs[r]->rows[i]->sym;
			e[count++] = (struct diff_entry){
			    {sym->name, view_basename(sym->module),
			     sym->file && *sym->file ? view_basename(sym->file) : "", sym->kind},
			    r,
			    *runs[r]->rows[i]};
		}
	qsort(e, count, sizeof(*e), compare_entries);
	for (size_t i = 0; i < count; i++) {
		if (merged && compare_entries(&e[merged - 1], &e[i]) == 0)
			add_stats(&e[merged - 1].stats, &e[i].stats);
		else
			e[merged++] = e[i];
	}
	*n = merged;
	return e;
}

/* The rows of one name's entries e[0..n): one row when each run has one
 * function of that name, else one per module and file, shown. */
static size_t rows_of_name(const struct diff_entry *e, size_t n, struct diff_row *rows)
{
	size_t per_run[2] = {0, 0}, k = 0;
	int modules_differ = 0;
	for (size_t i = 0; i < n; i++) {
		per_run[e[i].run]++;
		modules_differ |= strcmp(e[i].key.module, e[0].key.module) != 0;
	}
	int qualify = per_run[0] > 1 || per_run[1] > 1;
	for (size_t i = 0; i < n; k++) {
		rows[k] = (struct diff_row){
		    .key = e[i].key, .qualify = qualify, .show_module = qualify && modules_differ};
		rows[k].run[e[i].run] = e[i].stats;
		/* The same function in the other run: the next entry. */
		if (i + 1 < n && (!qualify || compare_keys(&e[i].key, &e[i + 1].key) == 0)) {
			rows[k].run[e[i + 1].run] = e[i + 1].stats;
			i += 2;
		} else {
			i++;
		}
	}
	return k;
}

static enum report_sort row_key;

static int64_t change_of(const struct diff_row *r, enum report_sort key)
{
	return (int64_t)(function_stats_value(&r->run[1], key) -
			 function_stats_value(&r->run[0], key));
}

static int compare_rows(const void *pa, const void *pb)
{
	const struct diff_row *a = pa, *b = pb;
	if (row_key != SORT_NAME) {
		int64_t ca = change_of(a, row_key), cb = change_of(b, row_key);
		uint64_t ma = ca < 0 ? -(uint64_t)ca : (uint64_t)ca;
		uint64_t mb = cb < 0 ? -(uint64_t)cb : (uint64_t)cb;
		if (ma != mb)
			return ma > mb ? -1 : 1;
		if (ca != cb)
			return ca > cb ? -1 : 1;
	}
	return compare_keys(&a->key, &b->key);
}

/* The table's rows, sorted by the largest change of `sort`; NULL when
 * memory ran out. */
static struct diff_row *rows_of(const struct diff_run *old, const struct diff_run *new,
				enum report_sort sort, size_t *nrows)
{
	const struct diff_run *runs[2] = {old, new};
	size_t n, k = 0;
	struct diff_entry *e = entries_of(runs, &n);
	struct diff_row *rows = e ? malloc((n + 1) * sizeof(*rows)) : NULL;
	if (!rows) {
		free(e);
		return NULL;
	}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && strcmp(e[j].key.name, e[i].key.name) == 0 &&
				e[j].key.kind == e[i].key.kind;
		     j++)
			;
		k += rows_of_name(e + i, j - i, rows + k);
	}
	free(e);
	row_key = sort;
	qsort(rows, k, sizeof(*rows), compare_rows);
	*nrows = k;
	return rows;
}

/* ---- text ------------------------------------------------------------------- */

/* The column groups: total, self, calls, and the sort key's when it is
 * another. */
static size_t groups_of(enum report_sort sort, enum report_sort groups[4])
{
	size_t n = 0;
	groups[n++] = SORT_TOTAL;
	groups[n++] = SORT_SELF;
	groups[n++] = SORT_CALLS;
	if (sort == SORT_AVG || sort == SORT_MIN || sort == SORT_MAX || sort == SORT_ONCPU)
		groups[n++] = sort;
	return n;
}

static const char *group_label(enum report_sort key)
{
	static const char *const labels[] = {"Total", "Self", "Calls", "Avg",
					     "Min",   "Max",  "Name",  "On-CPU"};
	return labels[key];
}

static void write_header(FILE *out, const enum report_sort *groups, size_t ngroups)
{
	char old[32], new[32], change[32];
	for (size_t g = 0; g < ngroups; g++) {
		snprintf(old, sizeof(old), "%s old", group_label(groups[g]));
		snprintf(new, sizeof(new), "%s new", group_label(groups[g]));
		snprintf(change, sizeof(change), "%s change", group_label(groups[g]));
		fprintf(out, "  %10s  %10s  %12s", old, new, change);
	}
	fputs("  Function\n", out);
	for (size_t g = 0; g < ngroups; g++)
		fputs("  ==========  ==========  ============", out);
	fputs("  ====================\n", out);
}

/* A figure of one run: a count, a duration, or "-" where the function is not. */
static const char *cell(const struct function_stats *s, enum report_sort key, char *buf, size_t len)
{
	uint64_t v = function_stats_value(s, key);
	if (!s->calls)
		snprintf(buf, len, "-");
	else if (key == SORT_CALLS)
		snprintf(buf, len, "%" PRIu64, v);
	else
		view_duration(v, buf, len);
	return buf;
}

/* A change, signed: "+3", "-1.250 ms", "0". */
static const char *change_cell(int64_t change, enum report_sort key, char *buf, size_t len)
{
	char magnitude[32];
	uint64_t m = change < 0 ? -(uint64_t)change : (uint64_t)change;
	if (change == 0)
		return key == SORT_CALLS ? "0" : "0 ns";
	if (key == SORT_CALLS)
		snprintf(magnitude, sizeof(magnitude), "%" PRIu64, m);
	else
		view_duration(m, magnitude, sizeof(magnitude));
	snprintf(buf, len, "%c%s", change < 0 ? '-' : '+', magnitude);
	return buf;
}

static void write_function(FILE *out, const struct diff_row *r)
{
	/* Named as report names it: "read@libc.so.6", "[syscall] read". */
	struct symbol s = {
	    .name = r->key.name, .module = r->key.module, .kind = (uint8_t)r->key.kind};
	char shown[512];
	fputs(view_kind_shown_name(&s, shown, sizeof(shown)), out);
	if (r->qualify) {
		fputs(" (", out);
		if (r->show_module || !*r->key.file)
			printable_put(out, r->key.module);
		if (r->show_module && *r->key.file)
			fputs(": ", out);
		printable_put(out, r->key.file);
		fputc(')', out);
	}
	if (!r->run[0].calls)
		fputs("  [only in new]", out);
	else if (!r->run[1].calls)
		fputs("  [only in old]", out);
	fputc('\n', out);
}

static void write_run(FILE *out, const char *label, const struct diff_run *run)
{
	fprintf(out, "%s: %s", label, run->trace);
	if (run->command && *run->command) {
		fputs(" (", out);
		printable_put(out, run->command);
		fputc(')', out);
	}
	fputc('\n', out);
}

static void write_text(FILE *out, const struct diff_run *old, const struct diff_run *new,
		       const struct diff_row *rows, size_t n, const struct diff_options *o)
{
	enum report_sort groups[4];
	size_t ngroups = groups_of(o->sort, groups);
	write_run(out, "old", old);
	write_run(out, "new", new);
	fputc('\n', out);
	write_header(out, groups, ngroups);
	for (size_t i = 0; i < n && (!o->limit || i < o->limit); i++) {
		for (size_t g = 0; g < ngroups; g++) {
			char a[32], b[32], c[40];
			fprintf(
			    out, "  %10s  %10s  %12s",
			    cell(&rows[i].run[0], groups[g], a, sizeof(a)),
			    cell(&rows[i].run[1], groups[g], b, sizeof(b)),
			    change_cell(change_of(&rows[i], groups[g]), groups[g], c, sizeof(c)));
		}
		fputs("  ", out);
		write_function(out, &rows[i]);
	}
}

/* ---- JSON ------------------------------------------------------------------- */

static void json_run(FILE *out, const char *label, const struct diff_run *run)
{
	fprintf(out, "\"%s\": {\"trace\": ", label);
	view_json_string(out, run->trace);
	fputs(", \"command\": ", out);
	if (run->command)
		view_json_string(out, run->command);
	else
		fputs("null", out);
	fputs("}", out);
}

static void json_stats(FILE *out, const struct function_stats *s)
{
	if (!s->calls) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"calls\": %" PRIu64, s->calls);
	for (enum report_sort k = SORT_TOTAL; k <= SORT_MAX; k++)
		if (k != SORT_CALLS)
			fprintf(out, ", \"%s_ns\": %" PRIu64, report_sort_name(k),
				function_stats_value(s, k));
	fputs("}", out);
}

static void json_row(FILE *out, const struct diff_row *r)
{
	fputs("{\"name\": ", out);
	view_json_string(out, r->key.name);
	fprintf(out, ", \"kind\": \"%s\"", view_kind_json(r->key.kind));
	fputs(", \"module\": ", out);
	view_json_string(out, r->key.module);
	fputs(", \"file\": ", out);
	if (*r->key.file)
		view_json_string(out, r->key.file);
	else
		fputs("null", out);
	fputs(", \"old\": ", out);
	json_stats(out, &r->run[0]);
	fputs(", \"new\": ", out);
	json_stats(out, &r->run[1]);
	fprintf(out, ", \"change\": {\"calls\": %" PRId64, change_of(r, SORT_CALLS));
	for (enum report_sort k = SORT_TOTAL; k <= SORT_MAX; k++)
		if (k != SORT_CALLS)
			fprintf(out, ", \"%s_ns\": %" PRId64, report_sort_name(k), change_of(r, k));
	fputs("}}", out);
}

static void write_json(FILE *out, const struct diff_run *old, const struct diff_run *new,
		       const struct diff_row *rows, size_t n, const struct diff_options *o)
{
	fputs("{", out);
	json_run(out, "old", old);
	fputs(",\n ", out);
	json_run(out, "new", new);
	fprintf(out, ",\n \"sort\": \"%s\",\n \"functions\": [", report_sort_name(o->sort));
	for (size_t i = 0; i < n && (!o->limit || i < o->limit); i++) {
		fputs(i ? ",\n  " : "\n  ", out);
		json_row(out, &rows[i]);
	}
	fputs("\n ]\n}\n", out);
}

int report_diff_write(FILE *out, const struct diff_run *old, const struct diff_run *new,
		      const struct diff_options *o)
{
	size_t n;
	struct diff_row *rows = rows_of(old, new, o->sort, &n);
	if (!rows)
		return -1;
	if (o->json)
		write_json(out, old, new, rows, n, o);
	else
		write_text(out, old, new, rows, n, o);
	free(rows);
	return 0;
}
