/*
 * views.h - the output formats.  Each view is a consumer of the walker's
 * enter/exit stream (walker.h): make it, let it fill a walk_consumer, walk,
 * then finish it, which writes what is left and reports a write error.
 */
#ifndef CALLTRACE_VIEWS_H
#define CALLTRACE_VIEWS_H

#include <stdio.h>
#include "../analysis/walker.h"
#include "../format/trace_reader.h"

/* ---- flame chart, interactive SVG (flame_svg.c) --------------------------
 * Needs three walks of the same stream: the first, with the measure
 * consumer, finds the time span and the depth of each thread; the second,
 * with the wide consumer, the calls wide enough to draw one by one; the
 * draw consumer then writes the head of the document and draws while
 * walking.  Calls narrower than min_px are merged into named frames (runs
 * of the same function, their callees merged by stack) as they come.  `r`
 * (may be NULL) gives the default title. */
struct flame_svg_options {
	const char *title;
	unsigned width;	   /* pixels; 0: 1200 */
	double min_px;	   /* narrower frames are merged; 0: 1.0 */
	unsigned max_rows; /* deeper calls are not drawn; 0: 1000 */
};
struct flame_svg;
struct flame_svg *flame_svg_new(FILE *out, const struct trace_reader *r,
				const struct flame_svg_options *o);
void flame_svg_measure_consumer(struct flame_svg *fs, struct walk_consumer *c);
void flame_svg_wide_consumer(struct flame_svg *fs, struct walk_consumer *c);
void flame_svg_draw_consumer(struct flame_svg *fs, struct walk_consumer *c);
/* Writes the end of the document; 0, or -1 when out of memory earlier. */
int flame_svg_finish(struct flame_svg *fs);
void flame_svg_free(struct flame_svg *fs);

/* ---- merged flame graph, interactive SVG (flame_merged.c) ----------------
 * The classic flame graph: identical stacks of every thread merged, the
 * outermost calls at the bottom.  One walk; memory bounded by the number of
 * distinct stacks. */
struct flame_merged_options {
	const char *title;
	unsigned width;	   /* pixels; 0: 1200 */
	double min_px;	   /* narrower functions are gathered into blocks; 0: 1.0 */
	unsigned max_rows; /* deeper calls are not drawn; 0: 1000 */
	int by_calls;	   /* widths by number of calls, not time */
	int by_weight;	   /* siblings heaviest first, not alphabetical */
};
struct flame_merged;
struct flame_merged *flame_merged_new(FILE *out, const struct trace_reader *r,
				      const struct flame_merged_options *o);
void flame_merged_consumer(struct flame_merged *fm, struct walk_consumer *c);
int flame_merged_finish(struct flame_merged *fm);
void flame_merged_free(struct flame_merged *fm);

/* ---- FlameGraph folded stacks (flame_folded.c) -------------------------- */
enum folded_value { FOLDED_CALLS, FOLDED_SELF_NS };
struct flame_folded;
/* per_thread: each stack starts with a "pid N tid M name" frame. */
struct flame_folded *flame_folded_new(FILE *out, enum folded_value value, int per_thread);
void flame_folded_consumer(struct flame_folded *ff, struct walk_consumer *c);
int flame_folded_finish(struct flame_folded *ff);
void flame_folded_free(struct flame_folded *ff);

/* ---- sequence diagrams (seq_model.c, seq_<format>.c) -------------------- */
/* SEQ_BY_AUTO: by module when the calls ran in several, else by source file. */
enum seq_by { SEQ_BY_MODULE, SEQ_BY_FILE, SEQ_BY_FUNCTION, SEQ_BY_AUTO };
struct seq_model;
/* max_calls: calls shown per thread before the diagram is cut (0: no limit). */
struct seq_model *seq_model_new(enum seq_by by, uint64_t max_calls);
/* Each process's main thread shown from its call of main (the calls before
 * it, C++ static initialisers, left out and counted in the title). */
void seq_model_from_main(struct seq_model *m, int on);
void seq_model_consumer(struct seq_model *m, struct walk_consumer *c);
/* After the walk: picks the lifelines (SEQ_BY_AUTO) and places the
 * messages on them. */
void seq_model_finish(struct seq_model *m);
/* 0, or -1 when memory ran out during the walk. */
int seq_model_status(const struct seq_model *m);
void seq_model_free(struct seq_model *m);

int seq_write_seqdiag(const struct seq_model *m, FILE *out);
int seq_write_mermaid(const struct seq_model *m, FILE *out);
int seq_write_plantuml(const struct seq_model *m, FILE *out);
int seq_write_diagrams(const struct seq_model *m, FILE *out);
int seq_write_svg(const struct seq_model *m, FILE *out);

/* ---- call graph (callgraph_model.c, callgraph_dot.c, callgraph_svg.c) --- */
struct callgraph;
struct callgraph *callgraph_new(void);
void callgraph_consumer(struct callgraph *g, struct walk_consumer *c);
int callgraph_status(const struct callgraph *g);
/* After the walk: functions under `share` of the time (0.01: 1 %), and past
 * the max_nodes heaviest, folded into one "other functions" node per module
 * (callgraph_fold.c); nothing when the graph has at most `small` functions.
 * 0, or -1 when out of memory. */
int callgraph_fold(struct callgraph *g, double share, uint32_t max_nodes, uint32_t small);
/* Decides how the nodes are named where two would show alike (report's
 * way: twice(int), twice(double)), once the graph is whole and folded; 0,
 * or -1 when out of memory (then each shows its own name). */
int callgraph_settle_names(struct callgraph *g);
/* "N functions under 1% of the time folded ..." or "" when none were. */
const char *callgraph_fold_note(const struct callgraph *g, char *buf, size_t len);
void callgraph_free(struct callgraph *g);

int callgraph_write_dot(const struct callgraph *g, FILE *out);
/* SVG drawn by graphviz's dot when use_dot is set and `dot` is on PATH,
 * else by calltrace's own layered layout; *used_dot tells which. */
int callgraph_write_svg(const struct callgraph *g, FILE *out, int use_dot, int *used_dot);

/* ---- the call paths to one function, and its callees (callgraph_focus.c)
 * Every path from the outermost calls to the functions named `name` (as
 * the views show it, whole, without its parameter list, or its scope and
 * name alone: view_short_name), merged, each
 * function with the calls of FUNC made under it and their time (a
 * recursive call counted once, at the outermost), then FUNC's callees. */
struct callgraph_focus;
struct callgraph_focus *callgraph_focus_new(const char *name);
void callgraph_focus_consumer(struct callgraph_focus *f, struct walk_consumer *c);
/* Instead: a consumer that passes on to `next` only the calls on a path
 * to FUNC and beneath it (their children's time: those passed on), for the
 * call graph of those paths; no values. */
void callgraph_focus_filter(struct callgraph_focus *f, const struct walk_consumer *next,
			    struct walk_consumer *c);
/* 0, or -1 when memory ran out during the walk. */
int callgraph_focus_status(const struct callgraph_focus *f);
/* How many distinct functions of that name were called. */
uint32_t callgraph_focus_matched(const struct callgraph_focus *f);
/* 0, or -1 on a write error. */
int callgraph_focus_write_text(struct callgraph_focus *f, FILE *out);
void callgraph_focus_free(struct callgraph_focus *f);

/* ---- Perfetto's protobuf trace (perfetto_proto.c) ------------------------
 * A perfetto.protos.Trace: slice begin/end events on a track per thread,
 * names interned, marks as instant events; calls overlapping [from, to]. */
struct perfetto_proto;
struct perfetto_proto *perfetto_proto_new(FILE *out, uint64_t from_ns, uint64_t to_ns);
void perfetto_proto_consumer(struct perfetto_proto *pp, struct walk_consumer *c);
int perfetto_proto_finish(struct perfetto_proto *pp);
void perfetto_proto_free(struct perfetto_proto *pp);

/* ---- Chrome Trace Event JSON (chrome_json.c) ---------------------------- */
struct chrome_json;
/* Only the calls that overlap from_ns .. to_ns (times since the session
 * started; 0 and UINT64_MAX for all), and the marks within. */
struct chrome_json *chrome_json_new(FILE *out, const struct trace_reader *r, uint64_t from_ns,
				    uint64_t to_ns);
void chrome_json_consumer(struct chrome_json *cj, struct walk_consumer *c);
int chrome_json_finish(struct chrome_json *cj);
void chrome_json_free(struct chrome_json *cj);

/* ---- speedscope evented profiles (speedscope_json.c) -------------------- */
struct speedscope_json;
struct speedscope_json *speedscope_json_new(FILE *out, const struct trace_reader *r);
void speedscope_json_consumer(struct speedscope_json *sj, struct walk_consumer *c);
int speedscope_json_finish(struct speedscope_json *sj);
void speedscope_json_free(struct speedscope_json *sj);

#endif
