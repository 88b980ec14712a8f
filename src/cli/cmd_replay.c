/*
 * cmd_replay.c - `calltrace replay`: the function graph with durations.
 */
#include "cli.h"
#include "../views/text_views.h"

#include <getopt.h>
#include <stdlib.h>

static void replay_usage(FILE *out)
{
	fprintf(out, "usage: calltrace replay [OPTIONS] [TRACE]\n\n"
		     "Shows every recorded call as a function graph, thread by thread, with\n"
		     "each call's duration (like uftrace replay).\n\n"
		     "options:\n" CLI_FILTER_HELP
		     "      --no-duration      leave out the DURATION column\n"
		     "      --no-tid           leave out the TID column\n"
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "  -h, --help             this help\n");
}

enum { OPT_NO_DURATION = 0x100, OPT_NO_TID };

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_FILTER_LONGOPTS,
		{"no-duration", no_argument, 0, OPT_NO_DURATION},
		{"no-tid", no_argument, 0, OPT_NO_TID},
		{"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	struct cli_trace t = {0};
	struct replay_options ro = {1, 1};
	const char *output = NULL;
	int opt, rc;
	while ((opt = getopt_long(argc, argv, CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) != -1) {
		if ((rc = cli_filter_option(&t, opt, optarg)) != 0) {
			if (rc < 0)
				return 2;
			continue;
		}
		switch (opt) {
		case OPT_NO_DURATION: ro.show_duration = 0; break;
		case OPT_NO_TID: ro.show_tid = 0; break;
		case 'o': output = optarg; break;
		case 'h': replay_usage(stdout); return 0;
		default: return cli_bad_option("replay", argc, argv);
		}
	}
	if (cli_trace_open(&t, argc, argv, optind) < 0)
		return 1;
	FILE *out = cli_output_open(output);
	if (!out) {
		cli_trace_close(&t);
		return 1;
	}
	struct replay *rp = replay_new(out, &ro);
	struct walk_consumer c;
	replay_consumer(rp, &c);
	cli_trace_walk(&t, &c, NULL);
	replay_free(rp);
	rc = cli_output_close(out, output);
	cli_trace_close(&t);
	return rc < 0 ? 1 : 0;
}
