/*
 * text_views.h - the core views: replay (function graph), report
 * (per-function statistics) and the JSON call tree.  Like every view, each
 * is a consumer of the walker's enter/exit stream.
 */
#ifndef CALLTRACE_TEXT_VIEWS_H
#define CALLTRACE_TEXT_VIEWS_H

#include <stdio.h>
#include "../analysis/walker.h"
#include "../format/trace_reader.h"
#include "function_stats.h"

/* ---- replay (replay_text.c) --------------------------------------------- */
struct replay_options {
	int show_duration;  /* the DURATION column */
	int show_tid;	    /* the [TID] column */
	uint64_t max_lines; /* lines written at most; 0: no bound */
};
/* A replay as a command runs it: its options, and whether it was cut. */
struct replay_run {
	struct replay_options options;
	int cut;
};
struct replay;
struct replay *replay_new(FILE *out, const struct replay_options *o);
void replay_consumer(struct replay *rp, struct walk_consumer *c);
/* Whether lines were left out for max_lines. */
int replay_was_cut(const struct replay *rp);
void replay_free(struct replay *rp);

/* ---- report (report_table.c) -------------------------------------------- */
struct report;
struct report *report_new(void);
void report_consumer(struct report *rp, struct walk_consumer *c);
struct report_layout {
	enum report_sort sort;
	size_t limit; /* rows at most (of each kind when by_kind); 0: all */
	int by_kind;  /* rows grouped by kind, under each kind's totals */
};
/* Writes the table, sorted; an On-CPU column when the calls had off-CPU
 * intervals inside. */
void report_write(struct report *rp, FILE *out, const struct report_layout *layout);
void report_free(struct report *rp);

/* ---- JSON call tree (json_tree.c) --------------------------------------- */
struct json_tree;
struct json_tree *json_tree_new(FILE *out, const struct trace_reader *r, int pretty);
void json_tree_consumer(struct json_tree *jt, struct walk_consumer *c);
/* Writes the metadata and closes the document. */
void json_tree_finish(struct json_tree *jt, const struct walk_stats *stats);
void json_tree_free(struct json_tree *jt);

/* ---- crash report (crash_report.c) -------------------------------------- */
struct crash_report;
struct symbol_table;
struct crash_report *crash_report_new(FILE *out, struct trace_reader *r,
				      struct symbol_table *symbols);
void crash_report_consumer(struct crash_report *cr, struct walk_consumer *c);
/* How many crashes were reported. */
size_t crash_report_count(const struct crash_report *cr);
void crash_report_free(struct crash_report *cr);

#endif
