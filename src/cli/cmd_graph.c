/*
 * cmd_graph.c - `calltrace graph`: the call graph as graphviz dot or SVG,
 * or, with --focus FUNC, the call paths to FUNC and its callees (as text,
 * or as the graph of those calls).
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SVG "callgraph.svg"
#define SMALL_GRAPH 30 /* functions: readable without folding */

static void graph_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace graph [OPTIONS] [TRACE]\n\n"
		"Draws the call graph: one box per function, clustered by module, coloured\n"
		"by the time spent in it; an edge from caller to callee labelled with the\n"
		"number of calls and their total time (recursive calls counted once).\n"
		"So that a big program's graph stays readable, when it has more than %d\n"
		"functions those under --min-share of the time, and past the --max-nodes\n"
		"heaviest, are folded into one \"other functions\" node per module, with a note\n"
		"saying so (given either option, the graph is folded whatever its size);\n"
		"--all shows every function.  A box counts the function's calls entered before\n"
		"a ring's kept calls (record --ring) and its unfinished ones, if any.\n\n"
		"With --focus FUNC, as text: every call path from the outermost calls to\n"
		"FUNC, merged into one tree, each function with the calls of FUNC made under\n"
		"it and their time (a recursive call of FUNC counted once, at the\n"
		"outermost); then FUNC and its callees, each with its calls and time there.\n"
		"FUNC is a name as the views show it, whole, without its parameter list\n"
		"(\"ns::f\" for \"ns::f(int)\"), or its scope and name alone, without return\n"
		"type and template arguments (\"ns::twice\" for \"int ns::twice<int>(int)\");\n"
		"when several functions have it (overloads, templates' instances,\n"
		"static functions of different files), they are merged, and listed first.\n"
		"With --focus and --format dot or svg: the graph of the calls on those paths\n"
		"and beneath FUNC.\n\n"
		"formats:\n"
		"  dot        graphviz dot text: render with 'dot -Tsvg FILE' (default)\n"
		"  svg        SVG laid out by graphviz's dot when it is installed, else by\n"
		"             calltrace's own layered layout (or with --own-layout)\n"
		"  text       with --focus (its default there)\n\n"
		"options:\n" CLI_FILTER_HELP "  -f, --format FORMAT    dot, svg or text\n"
		"      --focus FUNC       the call paths to FUNC and its callees\n"
		"      --own-layout       svg: never run dot\n"
		"      --min-share PCT    fold functions under PCT %% of the time (default 1)\n"
		"      --max-nodes N      fold all but the N heaviest functions (default 60)\n"
		"      --all              fold nothing\n"
		"  -o, --output FILE      write to FILE (\"-\": standard output); default\n"
		"                         standard output, " DEFAULT_SVG " for svg\n"
		"  -h, --help             this help\n",
		SMALL_GRAPH);
}

enum { OPT_OWN_LAYOUT = 0x100, OPT_MIN_SHARE, OPT_MAX_NODES, OPT_ALL, OPT_FOCUS };
enum graph_format { FORMAT_DEFAULT, FORMAT_DOT, FORMAT_SVG, FORMAT_TEXT };

struct graph_args {
	const char *output, *focus;
	enum graph_format format;
	int svg, use_dot;
	double share;
	uint32_t max_nodes, small; /* fold nothing when at most `small` functions */
};

/* The format and --focus agree: 0, or the exit code + 1. */
static int check_format(struct graph_args *a)
{
	if (a->format == FORMAT_DEFAULT)
		a->format = a->focus ? FORMAT_TEXT : FORMAT_DOT;
	if (a->format == FORMAT_TEXT && !a->focus) {
		cli_error("graph --format text draws the paths to one function: give --focus FUNC");
		return 3;
	}
	a->svg = a->format == FORMAT_SVG;
	return 0;
}

/* 0 to go on, else the exit code + 1. */
static int parse_args(int argc, char **argv, struct cli_trace *t, struct graph_args *a)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"format", required_argument, 0, 'f'},
						 {"own-layout", no_argument, 0, OPT_OWN_LAYOUT},
						 {"min-share", required_argument, 0, OPT_MIN_SHARE},
						 {"max-nodes", required_argument, 0, OPT_MAX_NODES},
						 {"all", no_argument, 0, OPT_ALL},
						 {"focus", required_argument, 0, OPT_FOCUS},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "f:o:h", longopts, NULL)) !=
	       -1) {
		int rc =
		    cli_shared_option(t, opt, optarg, &a->output, graph_usage, "graph", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc + 1;
		switch (opt) {
		case 'f':
			a->format = strcmp(optarg, "dot") == 0	  ? FORMAT_DOT
				    : strcmp(optarg, "svg") == 0  ? FORMAT_SVG
				    : strcmp(optarg, "text") == 0 ? FORMAT_TEXT
								  : FORMAT_DEFAULT;
			if (a->format == FORMAT_DEFAULT) {
				cli_error("unknown format '%s' (dot, svg or text)", optarg);
				return 3;
			}
			break;
		case OPT_FOCUS:
			if (!*optarg) {
				cli_error("--focus needs a function's name");
				return 3;
			}
			a->focus = optarg;
			break;
		case OPT_OWN_LAYOUT:
			a->use_dot = 0;
			break;
		case OPT_MIN_SHARE: {
			char *end;
			a->share = strtod(optarg, &end) / 100;
			a->small = 0;
			if (end == optarg || *end || !(a->share >= 0 && a->share <= 1)) {
				cli_error("bad --min-share '%s' (a percentage, 0 to 100)", optarg);
				return 3;
			}
			break;
		}
		case OPT_MAX_NODES:
			if (cli_parse_count(optarg, &a->max_nodes) < 0) {
				cli_error("bad --max-nodes '%s' (a number; 0: no limit)", optarg);
				return 3;
			}
			a->small = 0;
			break;
		case OPT_ALL:
			a->share = 0;
			a->max_nodes = 0;
			break;
		}
	}
	return check_format(a);
}

static int write_graph(const struct callgraph *g, const struct graph_args *a)
{
	int used_dot = 0, rc;
	const char *path = a->output ? a->output : a->svg ? DEFAULT_SVG : "-";
	FILE *out = cli_output_open(path);
	if (!out)
		return -1;
	rc = a->svg ? callgraph_write_svg(g, out, a->use_dot, &used_dot)
		    : callgraph_write_dot(g, out);
	if (rc < 0)
		cli_error("could not draw the call graph%s", used_dot ? " (dot failed)" : "");
	if (cli_output_close(out, path) < 0)
		return -1;
	if (rc == 0 && a->svg && !a->output)
		fprintf(stderr, "calltrace: wrote %s (%s)\n", path,
			used_dot ? "laid out by graphviz" : "own layout");
	return rc;
}

/* After the walk: whether FUNC was called (always so without --focus);
 * else says so. */
static int focus_found(const struct cli_trace *t, const struct callgraph_focus *f, const char *name)
{
	if (!f || callgraph_focus_matched(f))
		return 1;
	const struct walk_filters *w = &t->filters;
	cli_error("no call of a function named '%s' in the trace%s", name,
		  w->only || w->hide || w->max_depth || w->min_duration_ns || w->ntids || w->npids
		      ? " (with the filters given)"
		      : "");
	return 0;
}

/* --focus as text: walks, then writes the paths to FUNC; 0 or -1. */
static int write_focus(struct cli_trace *t, const struct graph_args *a, struct callgraph_focus *f)
{
	struct walk_consumer c;
	struct walk_stats stats;
	callgraph_focus_consumer(f, &c);
	cli_trace_walk(t, &c, &stats);
	if (callgraph_focus_status(f) < 0) {
		cli_error("out of memory while finding the paths to %s", a->focus);
		return -1;
	}
	if (!focus_found(t, f, a->focus))
		return -1;
	FILE *out = cli_output_open(a->output);
	if (!out)
		return -1;
	int rc = callgraph_focus_write_text(f, out);
	return cli_output_close(out, a->output) < 0 ? -1 : rc;
}

/* dot or svg; with --focus (f), only the calls on the paths to FUNC and
 * beneath it.  0 or -1. */
static int draw_graph(struct cli_trace *t, const struct graph_args *a, struct callgraph_focus *f)
{
	struct callgraph *g = callgraph_new();
	struct walk_consumer c, graph_c;
	struct walk_stats stats;
	int rc = -1;
	if (g) {
		callgraph_consumer(g, &graph_c);
		if (f)
			callgraph_focus_filter(f, &graph_c, &c);
		cli_trace_walk(t, f ? &c : &graph_c, &stats);
	}
	int built = g && callgraph_status(g) == 0 && (!f || callgraph_focus_status(f) == 0);
	if (built && (a->share > 0 || a->max_nodes))
		built = callgraph_fold(g, a->share, a->max_nodes, a->small) == 0;
	if (built)
		callgraph_settle_names(g); /* when memory runs out, each shows its own */
	if (!built)
		cli_error("out of memory while building the call graph");
	else if (focus_found(t, f, a->focus))
		rc = write_graph(g, a);
	callgraph_free(g);
	return rc;
}

int cmd_graph(int argc, char **argv)
{
	struct cli_trace t = {0};
	struct graph_args a = {.use_dot = 1, .share = 0.01, .max_nodes = 60, .small = SMALL_GRAPH};
	int rc = parse_args(argc, argv, &t, &a);
	if (rc) {
		cli_trace_close(&t); /* the filters given before the error */
		return rc - 1;
	}
	if (cli_trace_open(&t, argc, argv, optind) < 0)
		return 1;
	struct callgraph_focus *f = a.focus ? callgraph_focus_new(a.focus) : NULL;
	if (a.focus && !f) {
		cli_error("out of memory");
		rc = -1;
	} else {
		rc = a.format == FORMAT_TEXT ? write_focus(&t, &a, f) : draw_graph(&t, &a, f);
	}
	callgraph_focus_free(f);
	cli_trace_close(&t);
	return rc < 0 ? 1 : 0;
}
