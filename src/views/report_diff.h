/*
 * report_diff.h - two traces' per-function statistics side by side
 * (`calltrace diff`): calls, total and self time in each and the change,
 * functions matched by name (and by module and source file where names
 * repeat), never by address.
 */
#ifndef CALLTRACE_REPORT_DIFF_H
#define CALLTRACE_REPORT_DIFF_H

#include <stdio.h>
#include "function_stats.h"

/* One trace's side: its statistics (function_table_rows) and what names it. */
struct diff_run {
	const char *trace;   /* the file */
	const char *command; /* the recorded command, or NULL */
	struct function_stats **rows;
	size_t nrows;
};

struct diff_options {
	enum report_sort sort; /* by the largest change of this (or by name) */
	size_t limit;	       /* rows at most; 0: all */
	int json;	       /* JSON instead of the text table */
};

/* Writes the comparison of `old` and `new`; 0, or -1 when memory ran out. */
int report_diff_write(FILE *out, const struct diff_run *old, const struct diff_run *new,
		      const struct diff_options *o);

#endif
