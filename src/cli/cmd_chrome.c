/*
 * cmd_chrome.c - `calltrace chrome`: Chrome Trace Event JSON.
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>

static void chrome_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace chrome [OPTIONS] [TRACE]\n\n"
		"Writes the calls as Chrome Trace Event JSON: one complete (\"ph\":\"X\") event\n"
		"per call with ts and dur in microseconds, args file, line and seq, and the\n"
		"names of processes and threads.  Open it in Perfetto UI or chrome://tracing.\n"
		"Written as the trace is read: memory does not grow with the trace.\n\n"
		"options:\n" CLI_FILTER_HELP
		"  -o, --output FILE      write to FILE instead of standard output\n"
		"  -h, --help             this help\n");
}

static int write_chrome(struct cli_trace *t, FILE *out, void *ctx)
{
	(void)ctx;
	struct chrome_json *v = chrome_json_new(out, t->reader);
	int rc = -1;
	if (v) {
		struct walk_consumer c;
		struct walk_stats stats;
		chrome_json_consumer(v, &c);
		cli_trace_walk(t, &c, &stats);
		rc = chrome_json_finish(v);
		chrome_json_free(v);
	}
	if (rc < 0)
		cli_error("out of memory while writing the trace events");
	return rc;
}

int cmd_chrome(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	const char *output = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc =
		    cli_shared_option(&t, opt, optarg, &output, chrome_usage, "chrome", argc, argv);
		if (rc != CLI_OPTION_TAKEN)
			return rc == CLI_OPTION_OWN ? 2 : rc;
	}
	return cli_run_view(&t, argc, argv, output, 0, write_chrome, NULL);
}
