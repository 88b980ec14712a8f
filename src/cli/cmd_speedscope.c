/*
 * cmd_speedscope.c - `calltrace speedscope`: speedscope evented profiles.
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>

static void speedscope_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace speedscope [OPTIONS] [TRACE]\n\n"
		"Writes speedscope's file format: one evented profile per thread (\"O\" and\n"
		"\"C\" events at nanosecond times that never go back), the functions as shared\n"
		"frames with file and line.  Open it at speedscope's web page or app.\n"
		"Written as the trace is read, the frame list at the end.\n\n"
		"options:\n" CLI_FILTER_HELP
		"  -o, --output FILE      write to FILE instead of standard output\n"
		"  -h, --help             this help\n");
}

int cmd_speedscope(int argc, char **argv)
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
			speedscope_usage(stdout);
			return 0;
		} else {
			speedscope_usage(stderr);
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
	struct speedscope_json *cj = speedscope_json_new(out, t.reader);
	rc = -1;
	if (cj) {
		struct walk_consumer c;
		struct walk_stats stats;
		speedscope_json_consumer(cj, &c);
		cli_trace_walk(&t, &c, &stats);
		rc = speedscope_json_finish(cj);
		speedscope_json_free(cj);
	}
	if (rc < 0)
		cli_error("out of memory while writing the profile");
	if (cli_output_close(out, output) < 0)
		rc = -1;
	cli_trace_close(&t);
	return rc < 0 ? 1 : 0;
}
