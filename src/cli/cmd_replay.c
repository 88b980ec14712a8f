/*
 * cmd_replay.c - `calltrace replay`: the function graph with durations.
 *
 * To a terminal the graph stops after REPLAY_DEFAULT_MAX_LINES lines (a
 * trace of millions of calls would scroll for minutes), and says how to see
 * all of it; --max-lines changes the bound, 0 removes it.
 */
#include "cli.h"
#include "../views/text_views.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void replay_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: calltrace replay [OPTIONS] [TRACE]\n\n"
	    "Shows every recorded call as a function graph, thread by thread, with\n"
	    "each call's duration (like uftrace replay).  Library calls show their\n"
	    "library (read@libc.so.6(...)), system calls are marked [syscall] read(...),\n"
	    "off-CPU intervals are comments: /* off-CPU: blocked */.\n\n"
	    "options:\n" CLI_FILTER_HELP "      --no-duration      leave out the DURATION column\n"
	    "      --no-tid           leave out the TID column\n"
	    "      --max-lines N      stop after N lines (0: no bound; to a terminal the\n"
	    "                         default is 200000, and the end says how to see the rest)\n"
	    "  -o, --output FILE      write to FILE instead of standard output\n"
	    "  -h, --help             this help\n");
}

enum { OPT_NO_DURATION = 0x100, OPT_NO_TID, OPT_MAX_LINES };

int replay_parse_max_lines(const char *command, const char *arg, uint32_t *max)
{
	if (cli_parse_count(arg, max) == 0)
		return 0;
	cli_error("%s: --max-lines wants a number of lines (0: no bound), not '%s'", command, arg);
	return -1;
}

int replay_write(struct cli_trace *t, FILE *out, void *ctx)
{
	struct replay_run *run = ctx;
	struct replay *rp = replay_new(out, &run->options);
	if (!rp) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	replay_consumer(rp, &c);
	cli_trace_walk(t, &c, NULL);
	run->cut = replay_was_cut(rp);
	replay_free(rp);
	return 0;
}

/* An argument as the shell takes it back: 'quoted' unless plain. */
static void put_shell_word(FILE *out, const char *w)
{
	if (*w && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_-+=./,:@%") == strlen(w)) {
		fputs(w, out);
		return;
	}
	fputc('\'', out);
	for (; *w; w++)
		fputs(*w == '\'' ? "'\\''" : (char[]){*w, 0}, out);
	fputc('\'', out);
}

/* "the graph stopped after N lines": and the command that shows it all,
 * this one with --max-lines 0 instead of the user's. */
static void say_cut(uint32_t max, int argc, char **argv)
{
	fflush(stdout);
	fprintf(stderr,
		"calltrace: the graph stopped after %u lines (--max-lines); all of it: "
		"calltrace replay --max-lines 0",
		max);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--max-lines") == 0) {
			i++;
			continue;
		}
		if (strncmp(argv[i], "--max-lines=", 12) == 0)
			continue;
		fputc(' ', stderr);
		put_shell_word(stderr, argv[i]);
	}
	fputc('\n', stderr);
}

int cmd_replay(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"no-duration", no_argument, 0, OPT_NO_DURATION},
						 {"no-tid", no_argument, 0, OPT_NO_TID},
						 {"max-lines", required_argument, 0, OPT_MAX_LINES},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	struct replay_run run = {.options = {1, 1, 0}};
	const char *output = NULL;
	int max_given = 0, opt;
	uint32_t max = 0;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc =
		    cli_shared_option(&t, opt, optarg, &output, replay_usage, "replay", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc;
		if (opt == OPT_NO_DURATION)
			run.options.show_duration = 0;
		else if (opt == OPT_NO_TID)
			run.options.show_tid = 0;
		else if (replay_parse_max_lines("replay", optarg, &max) < 0) {
			cli_trace_close(&t);
			return 2;
		} else
			max_given = 1;
	}
	int to_terminal = (!output || strcmp(output, "-") == 0) && isatty(STDOUT_FILENO);
	run.options.max_lines = max_given ? max : to_terminal ? REPLAY_DEFAULT_MAX_LINES : 0;
	int code = cli_run_view(&t, argc, argv, output, 0, replay_write, &run);
	if (run.cut)
		say_cut((uint32_t)run.options.max_lines, argc, argv);
	return code;
}
