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

int cmd_chrome(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	const char *output = NULL;
	int opt, rc;
	while ((opt = getopt_long(argc, argv, CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) != -1) {
		if ((rc = cli_filter_option(&t, opt, optarg)) != 0) {
			if (rc < 0)
				return 2;
			continue;
		}
		if (opt == 'o') {
			output = optarg;
		} else if (opt == 'h') {
			chrome_usage(stdout);
			return 0;
		} else {
			chrome_usage(stderr);
			return 2;
		}
	}
	if (cli_trace_open(&t, argc, argv, optind) < 0)
		return 1;
	FILE *out = cli_output_open(output);
	if (!out) {
		cli_trace_close(&t);
		return 1;
	}
	struct chrome_json *cj = chrome_json_new(out, t.reader);
	rc = -1;
	if (cj) {
		struct walk_consumer c;
		struct walk_stats stats;
		chrome_json_consumer(cj, &c);
		cli_trace_walk(&t, &c, &stats);
		rc = chrome_json_finish(cj);
		chrome_json_free(cj);
	}
	if (rc < 0)
		cli_error("out of memory while writing the trace events");
	if (cli_output_close(out, output) < 0)
		rc = -1;
	cli_trace_close(&t);
	return rc < 0 ? 1 : 0;
}
