/*
 * cmd_live.c - `calltrace live` (or `calltrace PROGRAM`): run a program and
 * show its calls, as easily as strace shows system calls.
 *
 * The program is recorded as `record` does (same engines, same options)
 * into a temporary trace, and when it ends, its function graph is printed
 * as `replay` prints it: on stderr, so that the program's own output stays
 * apart, or into -o FILE.  The exit status is the program's.
 *
 * On stderr the graph stops after REPLAY_DEFAULT_MAX_LINES lines (or
 * --max-lines); the trace is kept then, and the command that shows the
 * rest is said.
 */
#include "cli.h"
#include "record.h"
#include "../views/text_views.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct live_options {
	struct record_options record;
	struct replay_run replay;
	const char *output; /* the graph; NULL: stderr */
	int keep;
	int max_given; /* --max-lines, else the default bound on stderr */
};

static void live_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: calltrace live [OPTIONS] PROGRAM [ARGS...]\n"
	    "       calltrace PROGRAM [ARGS...]\n\n"
	    "Runs PROGRAM, records its calls (as 'calltrace record' does) into a\n"
	    "temporary trace, and when it ends shows them as a function graph with\n"
	    "durations (as 'calltrace replay' does) on standard error.  The program's\n"
	    "own output passes through; the exit status is the program's.\n\n"
	    "options:\n"
	    "  -o, --output FILE      write the graph to FILE instead of standard error\n"
	    "  -k, --keep             keep the trace (its name is said) instead of removing it\n"
	    "      --no-duration      leave out the DURATION column\n"
	    "      --no-tid           leave out the TID column\n"
	    "      --max-lines N      stop the graph after N lines (0: no bound; on standard\n"
	    "                         error the default is 200000, and the trace is kept)\n"
	    "  -h, --help             this help\n"
	    "and the options of 'calltrace record' but -o:\n" RECORD_OPTIONS_HELP
	    "\nThe graph takes -F and -N too, whatever the engine: -F shows the calls of\n"
	    "matching functions and what they call, -N hides matching functions.\n");
}

enum { OPT_NO_DURATION = 0x200, OPT_NO_TID, OPT_MAX_LINES };

/* 0 and the index of PROGRAM, -1 after an error, or -2 after --help. */
static int parse_options(struct live_options *o, int argc, char **argv)
{
	static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
						 {"keep", no_argument, 0, 'k'},
						 {"no-duration", no_argument, 0, OPT_NO_DURATION},
						 {"no-tid", no_argument, 0, OPT_NO_TID},
						 {"max-lines", required_argument, 0, OPT_MAX_LINES},
						 RECORD_LONGOPTS,
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	int opt;
	while ((opt = getopt_long(argc, argv, "+:o:kh" RECORD_SHORTOPTS, longopts, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->output = optarg;
			continue;
		case 'k':
			o->keep = 1;
			continue;
		case OPT_NO_DURATION:
			o->replay.options.show_duration = 0;
			continue;
		case OPT_NO_TID:
			o->replay.options.show_tid = 0;
			continue;
		case OPT_MAX_LINES: {
			uint32_t max;
			if (replay_parse_max_lines("live", optarg, &max) < 0)
				return -1;
			o->replay.options.max_lines = max;
			o->max_given = 1;
			continue;
		}
		case 'h':
			live_usage(stdout);
			return -2;
		}
		int rc = record_option(&o->record, opt, optarg);
		if (rc > 0)
			cli_bad_option("live", argc, argv);
		if (rc != 0)
			return -1;
	}
	if (optind >= argc) {
		cli_error("live: no program given (see 'calltrace live --help')");
		return -1;
	}
	return optind;
}

/* The graph of `trace`, with the filters -F and -N; 0 or -1. */
static int show_graph(struct live_options *o, const char *trace)
{
	struct cli_trace t = {0};
	if ((o->record.only && cli_filter_option(&t, 'F', o->record.only) < 0) ||
	    (o->record.hide && cli_filter_option(&t, 'N', o->record.hide) < 0))
		return -1;
	char *argv[] = {(char *)"live", (char *)trace, NULL};
	if (cli_trace_open(&t, 2, argv, 1) < 0)
		return -1;
	fflush(stdout);
	FILE *out = o->output ? cli_output_open(o->output) : stderr;
	if (!o->max_given)
		o->replay.options.max_lines = o->output ? 0 : REPLAY_DEFAULT_MAX_LINES;
	int rc = out ? replay_write(&t, out, &o->replay) : -1;
	if (out && out != stderr && cli_output_close(out, o->output) < 0)
		rc = -1;
	cli_trace_close(&t);
	return rc;
}

/* A fresh private folder for the trace, and the trace's name in it, into
 * `path` (`record` creates the file itself, and never over another).  0,
 * or -1 after an error. */
static int temporary_trace(char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/calltrace-live-XXXXXX", dir && *dir ? dir : "/tmp");
	if (!mkdtemp(path)) {
		cli_error("live: cannot make a temporary folder %s: %s", path, strerror(errno));
		return -1;
	}
	size_t used = strlen(path);
	snprintf(path + used, len - used, "/live.trace");
	return 0;
}

/* Removes the trace and its temporary folder. */
static void remove_temporary_trace(char *path)
{
	unlink(path);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	rmdir(path);
}

/* The graph was cut: the trace stays, and the command that shows it all. */
static void say_cut(const struct live_options *o, const char *trace)
{
	fprintf(stderr,
		"calltrace: the graph stopped after %llu lines (--max-lines); the trace is kept: "
		"calltrace replay --max-lines 0",
		(unsigned long long)o->replay.options.max_lines);
	if (o->record.only)
		fprintf(stderr, " -F '%s'", o->record.only);
	if (o->record.hide)
		fprintf(stderr, " -N '%s'", o->record.hide);
	fprintf(stderr, "%s%s %s\n", o->replay.options.show_duration ? "" : " --no-duration",
		o->replay.options.show_tid ? "" : " --no-tid", trace);
}

static int live(struct live_options *o, char **argv, int first)
{
	char trace[PATH_MAX];
	if (temporary_trace(trace, sizeof(trace)) < 0)
		return 2;
	o->record.output = trace;
	int code = record_run(&o->record, argv, first);
	struct stat st;
	if (stat(trace, &st) == 0 && st.st_size > 0 && show_graph(o, trace) < 0 && code == 0)
		code = 1;
	if (o->replay.cut)
		say_cut(o, trace);
	else if (o->keep)
		cli_error("trace kept in %s", trace);
	else
		remove_temporary_trace(trace);
	return code;
}

int cmd_live(int argc, char **argv)
{
	struct live_options o;
	memset(&o, 0, sizeof(o));
	record_options_init(&o.record);
	o.record.quiet = 1;
	o.replay = (struct replay_run){.options = {1, 1, 0}};
	int first = parse_options(&o, argc, argv);
	int code = first == -2 ? 0 : first < 0 ? 2 : live(&o, argv, first);
	record_options_free(&o.record);
	return code;
}

int live_can_run(const char *name)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	const char *dirs = getenv("PATH");
	for (const char *d = dirs; d && *d;) {
		size_t n = strcspn(d, ":");
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof(path), "%.*s/%s", (int)n, n ? d : ".", name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0)
			return 1;
		d += n + (d[n] == ':');
	}
	return 0;
}
