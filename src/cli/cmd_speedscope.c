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

static int write_speedscope(struct cli_trace *t, FILE *out, void *ctx)
{
	(void)ctx;
	struct speedscope_json *v = speedscope_json_new(out, t->reader);
	int rc = -1;
	if (v) {
		struct walk_consumer c;
		struct walk_stats stats;
		speedscope_json_consumer(v, &c);
		cli_trace_walk(t, &c, &stats);
		rc = speedscope_json_finish(v);
		speedscope_json_free(v);
	}
	if (rc < 0)
		cli_error("out of memory while writing the profile");
	return rc;
}

int cmd_speedscope(int argc, char **argv)
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
		int rc = cli_shared_option(&t, opt, optarg, &output, speedscope_usage, "speedscope",
					   argc, argv);
		if (rc != CLI_OPTION_TAKEN)
			return rc == CLI_OPTION_OWN ? 2 : rc;
	}
	return cli_run_view(&t, argc, argv, output, 0, write_speedscope, NULL);
}
