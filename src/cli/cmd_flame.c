/*
 * cmd_flame.c - `calltrace flame`: the ordered flame chart as interactive
 * SVG, the classic merged flame graph with --merged, or FlameGraph folded
 * stacks with --folded.
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SVG "flame.svg"

static void flame_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace flame [OPTIONS] [TRACE]\n\n"
		"Draws an ordered flame chart: x is time, in the order the calls happened (not\n"
		"merged alphabetically), y is call depth, one band per thread of every process,\n"
		"labelled \"pid N tid M name\", all on the session's time axis, so that what\n"
		"ran at the same time lines up.  The SVG is self-contained and interactive: click\n"
		"a frame to zoom to it (Esc or \"Reset zoom\" to go back), search by regex or\n"
		"text, hover for the call's sequence number, start time, duration and file:line.\n"
		"Calls narrower than --min-width pixels are merged by function: a run of calls\n"
		"of the same function becomes one frame \"handle_request \xc3\x97"
		"3000\" with the calls\n"
		"it made merged beneath it, so every level names its functions and the file\n"
		"stays small however long the trace; click a merged frame to see the calls\n"
		"inside it at the new scale.  The search counts every matching call, those\n"
		"inside merged frames too.\n\n"
		"With --merged, draws the classic flame graph instead: identical stacks of\n"
		"every thread merged into one frame, the outermost calls at the bottom, siblings\n"
		"in alphabetical order (--order weight: heaviest first), widths by time\n"
		"(--value calls: by number of calls); interactive like the chart.\n\n"
		"With --folded, writes FlameGraph folded stacks instead (\"main;a;b 3\"): one\n"
		"line per distinct stack, its value the number of calls that ended in that\n"
		"stack (or their self time in ns with --self-time), stacks in the order they\n"
		"first happened.\n\n"
		"options:\n" CLI_FILTER_HELP
		"  -o, --output FILE      write to FILE (\"-\": standard output); default\n"
		"                         " DEFAULT_SVG ", or standard output with --folded\n"
		"      --merged           the merged flame graph instead of the ordered chart\n"
		"      --order WHAT       merged: siblings by name (default) or weight\n"
		"      --value WHAT       merged: widths by time (default) or calls\n"
		"      --folded           folded stacks instead of SVG\n"
		"      --self-time        folded: self time in ns instead of call counts\n"
		"      --per-thread       folded: start each stack with \"pid N tid M name\"\n"
		"      --width PX         SVG width (default 1200)\n"
		"      --min-width PX     merge calls narrower than this (default 1.0)\n"
		"      --title TEXT       SVG title (default: \"Flame chart of COMMAND\")\n"
		"  -h, --help             this help\n");
}

enum {
	OPT_FOLDED = 0x100,
	OPT_SELF,
	OPT_PER_THREAD,
	OPT_WIDTH,
	OPT_MIN_WIDTH,
	OPT_TITLE,
	OPT_MERGED,
	OPT_ORDER,
	OPT_VALUE
};

struct flame_args {
	const char *output;
	int folded, self_time, per_thread, merged;
	struct flame_svg_options svg;
	struct flame_merged_options graph;
};

static int parse_number(const char *arg, const char *what, double min, double max, double *v)
{
	char *end;
	*v = strtod(arg, &end);
	if (end == arg || *end || !(*v >= min && *v <= max)) {
		cli_error("bad %s '%s' (%g to %g)", what, arg, min, max);
		return -1;
	}
	return 0;
}

/* 0 to go on, else the exit code + 1. */
static int parse_args(int argc, char **argv, struct cli_trace *t, struct flame_args *a)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"output", required_argument, 0, 'o'},
						 {"folded", no_argument, 0, OPT_FOLDED},
						 {"self-time", no_argument, 0, OPT_SELF},
						 {"per-thread", no_argument, 0, OPT_PER_THREAD},
						 {"width", required_argument, 0, OPT_WIDTH},
						 {"min-width", required_argument, 0, OPT_MIN_WIDTH},
						 {"title", required_argument, 0, OPT_TITLE},
						 {"merged", no_argument, 0, OPT_MERGED},
						 {"order", required_argument, 0, OPT_ORDER},
						 {"value", required_argument, 0, OPT_VALUE},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	int opt;
	double v;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc =
		    cli_shared_option(t, opt, optarg, &a->output, flame_usage, "flame", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc + 1;
		switch (opt) {
		case OPT_FOLDED:
			a->folded = 1;
			break;
		case OPT_SELF:
			a->self_time = 1;
			break;
		case OPT_PER_THREAD:
			a->per_thread = 1;
			break;
		case OPT_WIDTH:
			if (parse_number(optarg, "--width", 300, 100000, &v) < 0)
				return 3;
			a->svg.width = a->graph.width = (unsigned)v;
			break;
		case OPT_MIN_WIDTH:
			if (parse_number(optarg, "--min-width", 0.01, 1000, &v) < 0)
				return 3;
			a->svg.min_px = a->graph.min_px = v;
			break;
		case OPT_TITLE:
			a->svg.title = a->graph.title = optarg;
			break;
		case OPT_MERGED:
			a->merged = 1;
			break;
		case OPT_ORDER:
			if (strcmp(optarg, "name") && strcmp(optarg, "weight")) {
				cli_error("unknown --order '%s' (name or weight)", optarg);
				return 3;
			}
			a->graph.by_weight = optarg[0] == 'w';
			break;
		case OPT_VALUE:
			if (strcmp(optarg, "time") && strcmp(optarg, "calls")) {
				cli_error("unknown --value '%s' (time or calls)", optarg);
				return 3;
			}
			a->graph.by_calls = optarg[0] == 'c';
			break;
		}
	}
	return 0;
}

static int write_folded(struct cli_trace *t, FILE *out, const struct flame_args *a)
{
	struct flame_folded *ff =
	    flame_folded_new(out, a->self_time ? FOLDED_SELF_NS : FOLDED_CALLS, a->per_thread);
	if (!ff)
		return -1;
	struct walk_consumer c;
	struct walk_stats stats;
	flame_folded_consumer(ff, &c);
	cli_trace_walk(t, &c, &stats);
	int rc = flame_folded_finish(ff);
	flame_folded_free(ff);
	return rc;
}

static int write_svg(struct cli_trace *t, FILE *out, const struct flame_args *a)
{
	struct flame_svg *fs = flame_svg_new(out, t->reader, &a->svg);
	if (!fs)
		return -1;
	struct walk_consumer c;
	struct walk_stats stats;
	t->passes = 3;
	flame_svg_measure_consumer(fs, &c);
	cli_trace_walk(t, &c, &stats);
	flame_svg_wide_consumer(fs, &c);
	cli_trace_walk(t, &c, &stats);
	flame_svg_draw_consumer(fs, &c);
	cli_trace_walk(t, &c, &stats);
	int rc = flame_svg_finish(fs);
	flame_svg_free(fs);
	return rc;
}

static int write_merged(struct cli_trace *t, FILE *out, const struct flame_args *a)
{
	struct flame_merged *fm = flame_merged_new(out, t->reader, &a->graph);
	if (!fm)
		return -1;
	struct walk_consumer c;
	struct walk_stats stats;
	flame_merged_consumer(fm, &c);
	cli_trace_walk(t, &c, &stats);
	int rc = flame_merged_finish(fm);
	flame_merged_free(fm);
	return rc;
}

static int write_flame(struct cli_trace *t, FILE *out, void *ctx)
{
	const struct flame_args *a = ctx;
	int rc = a->folded   ? write_folded(t, out, a)
		 : a->merged ? write_merged(t, out, a)
			     : write_svg(t, out, a);
	if (rc < 0)
		cli_error("out of memory while writing the flame %s",
			  a->folded ? "stacks" : "chart");
	return rc;
}

int cmd_flame(int argc, char **argv)
{
	struct cli_trace t = {0};
	struct flame_args a = {0};
	int rc = parse_args(argc, argv, &t, &a);
	if (rc) {
		cli_trace_close(&t); /* the filters given before the error */
		return rc - 1;
	}
	if (a.folded && a.merged) {
		cli_error("flame: --folded and --merged are two different outputs: pick one");
		cli_trace_close(&t);
		return 2;
	}
	if (!a.folded && (a.per_thread || a.self_time)) {
		cli_error("flame: --per-thread and --self-time go with --folded");
		cli_trace_close(&t);
		return 2;
	}
	const char *output = a.output ? a.output : a.folded ? "-" : DEFAULT_SVG;
	return cli_run_view(&t, argc, argv, output, !a.output, write_flame, &a);
}
