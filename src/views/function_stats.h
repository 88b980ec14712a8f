/*
 * function_stats.h - per-function statistics over the walker's stream:
 * calls, total time, self time, min and max per call, and the on-CPU part
 * of the total time (less the off-CPU intervals inside the calls).  `report` writes them
 * as a table, `diff` puts two traces' side by side.
 */
#ifndef CALLTRACE_FUNCTION_STATS_H
#define CALLTRACE_FUNCTION_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "../analysis/walker.h"

/* The statistics a table is sorted by (--sort). */
enum report_sort {
	SORT_TOTAL,
	SORT_SELF,
	SORT_CALLS,
	SORT_AVG,
	SORT_MIN,
	SORT_MAX,
	SORT_NAME,
	SORT_ONCPU
};

struct function_stats {
	const struct symbol *sym;
	uint64_t calls, total_ns, self_ns, min_ns, max_ns;
	uint64_t sum_ns;     /* every call's duration, inner recursive ones too */
	uint64_t oncpu_ns;   /* total_ns less the off-CPU intervals inside */
	uint32_t active;     /* calls of it open right now (recursion) */
	uint64_t before;     /* calls entered before a ring's kept calls */
	uint64_t unfinished; /* calls with no recorded end */
};

struct function_table;
struct function_table *function_table_new(void);
void function_table_consumer(struct function_table *ft, struct walk_consumer *c);
/* The functions called at least once, in no particular order, into *n: an
 * array the caller frees (the statistics stay the table's); NULL when
 * memory ran out. */
struct function_stats **function_table_rows(const struct function_table *ft, size_t *n);
void function_table_free(struct function_table *ft);
/* 1 if the stream held off-CPU intervals (on-CPU time means something). */
int function_table_has_offcpu(const struct function_table *ft);

/* The statistic `key` of s (for SORT_AVG the mean duration of a call, inner
 * recursive calls counted as calls, so that it lies between Min and Max;
 * 0 for SORT_NAME). */
uint64_t function_stats_value(const struct function_stats *s, enum report_sort key);
/* Parses a --sort key; -1 if unknown. */
int report_sort_parse(const char *name);
/* "total", "self", ... for a key. */
const char *report_sort_name(enum report_sort key);

#endif
