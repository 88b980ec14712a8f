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
		     "each call's duration (like uftrace replay).  Library calls show their\n"
		     "library (read@libc.so.6(...)), system calls are marked [syscall] read(...),\n"
		     "off-CPU intervals are comments: /* off-CPU: blocked */.\n\n"
		     "options:\n" CLI_FILTER_HELP
		     "      --no-duration      leave out the DURATION column\n"
		     "      --no-tid           leave out the TID column\n"
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "  -h, --help             this help\n");
}

enum { OPT_NO_DURATION = 0x100, OPT_NO_TID };

int replay_write(struct cli_trace *t, FILE *out, void *ctx)
{
	struct replay *rp = replay_new(out, ctx);
	if (!rp) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	replay_consumer(rp, &c);
	cli_trace_walk(t, &c, NULL);
	replay_free(rp);
	return 0;
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"no-duration", no_argument, 0, OPT_NO_DURATION},
						 {"no-tid", no_argument, 0, OPT_NO_TID},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	struct replay_options ro = {1, 1};
	const char *output = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc =
		    cli_shared_option(&t, opt, optarg, &output, replay_usage, "replay", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc;
		if (opt == OPT_NO_DURATION)
			ro.show_duration = 0;
		else
			ro.show_tid = 0;
	}
	return cli_run_view(&t, argc, argv, output, 0, replay_write, &ro);
}
