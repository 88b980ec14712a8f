/*
 * cmd_json.c - `calltrace json`: the call tree of every thread as JSON.
 */
#include "cli.h"
#include "../views/text_views.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void json_usage(FILE *out)
{
	fprintf(out, "usage: calltrace json [OPTIONS] [TRACE]\n\n"
		     "Writes one call tree per thread of every process as JSON (the calltrace-rs\n"
		     "schema: metadata, call_trees by thread id, calls with function, address,\n"
		     "start/end time, duration_ns, file, line and children).\n\n"
		     "options:\n" CLI_FILTER_HELP
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "      --pretty           indent (default, unless CALLTRACE_PRETTY_JSON=0)\n"
		     "      --compact          no indentation\n"
		     "  -h, --help             this help\n");
}

enum { OPT_PRETTY = 0x100, OPT_COMPACT };

static int write_json(struct cli_trace *t, FILE *out, void *ctx)
{
	cli_warn_big_output(t, "JSON call tree", 290.0 /* bytes a call, as measured */, NULL);
	struct json_tree *jt = json_tree_new(out, t->reader, *(int *)ctx);
	if (!jt) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	struct walk_stats stats;
	json_tree_consumer(jt, &c);
	cli_trace_walk(t, &c, &stats);
	json_tree_finish(jt, &stats);
	json_tree_free(jt);
	return 0;
}

int cmd_json(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"output", required_argument, 0, 'o'},
						 {"pretty", no_argument, 0, OPT_PRETTY},
						 {"compact", no_argument, 0, OPT_COMPACT},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	const char *output = NULL, *env = getenv("CALLTRACE_PRETTY_JSON");
	int pretty = !(env && (strcmp(env, "0") == 0 || strcmp(env, "false") == 0));
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc =
		    cli_shared_option(&t, opt, optarg, &output, json_usage, "json", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc;
		pretty = opt == OPT_PRETTY;
	}
	return cli_run_view(&t, argc, argv, output, 0, write_json, &pretty);
}
