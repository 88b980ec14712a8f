/*
 * cmd_attach.c - `calltrace attach`: record the calls of a running process
 * with the dynamic engine, then detach and leave it running as before.
 */
#include "cli.h"
#include "../dynamic/dynamic.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DURATION_NS (1ull << 62) /* about 146 years */

struct attach_options {
	const char *output;
	struct cli_dynamic engine;
};

static void attach_usage(FILE *out)
{
	fprintf(out, "usage: calltrace attach -p PID [OPTIONS]\n\n"
		     "Records the function calls of the running process PID (every thread, and\n"
		     "the children it forks) without recompiling it, until --duration has passed,\n"
		     "Ctrl-C, or the process exits.  Then every breakpoint and every swapped\n"
		     "return address is put back and the process runs on as before.\n"
		     "While tracing, the process and calltrace share one CPU (each ptrace stop is\n"
		     "much cheaper that way); the process gets its CPU affinity back at the end.\n"
		     "CALLTRACE_NO_PIN=1 keeps the affinities as they are.\n\n"
		     "options:\n"
		     "  -p, --pid PID          the process to trace\n"
		     "  -o, --output FILE      trace file (default " DEFAULT_TRACE ")\n"
		     "  -d, --duration DUR     stop after DUR (e.g. 500ms, 5s, 1m; a bare number\n"
		     "                         is seconds)\n"
		     "      --module REGEX     also instrument shared libraries matching REGEX\n"
		     "  -F, --filter REGEX     instrument only functions matching REGEX\n"
		     "  -N, --notrace REGEX    do not instrument functions matching REGEX\n"
		     "      --no-follow        do not follow forked children\n"
		     "  -v, --verbose          say what is instrumented, and the stop counts\n"
		     "  -h, --help             this help\n");
}

static int parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v <= 0 || v > 0x3fffffff) {
		cli_error("bad PID '%s'", arg);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

/* A duration for --duration: finite, more than nothing, a bare number
 * taken as seconds; 0 or -1. */
static int parse_attach_duration(const char *arg, uint64_t *ns)
{
	char *unit, one[16];
	uint64_t unit_ns;
	double v = strtod(arg, &unit);
	if (unit == arg || !isfinite(v) || v <= 0)
		return -1;
	if (*unit == '\0')
		unit = "s";
	/* The unit alone, to know the largest count that fits. */
	snprintf(one, sizeof(one), "1%s", unit);
	if (strlen(unit) > 2 || cli_parse_duration(one, &unit_ns) < 0 ||
	    v * (double)unit_ns >= (double)MAX_DURATION_NS)
		return -1;
	*ns = (uint64_t)(v * (double)unit_ns + 0.5);
	return *ns > 0 ? 0 : -1;
}

static int parse_option(struct attach_options *o, int opt)
{
	switch (opt) {
	case 'p':
		return parse_pid(optarg, &o->engine.dyn.pid);
	case 'o':
		o->output = optarg;
		return 0;
	case 'd':
		if (parse_attach_duration(optarg, &o->engine.dyn.duration_ns) < 0) {
			cli_error("bad duration '%s': more than 0 and finite, e.g. 500ms, 5s, 1m",
				  optarg);
			return -1;
		}
		return 0;
	case 'h':
		attach_usage(stdout);
		exit(0);
	}
	return -1;
}

static int parse_options(struct attach_options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, 0, 'p'},	     {"output", required_argument, 0, 'o'},
	    {"duration", required_argument, 0, 'd'}, CLI_DYNAMIC_LONGOPTS,
	    {"help", no_argument, 0, 'h'},	     {0, 0, 0, 0}};
	int opt;
	o->output = DEFAULT_TRACE;
	o->engine.dyn.follow_forks = 1;
	while ((opt = getopt_long(argc, argv, ":p:o:d:h" CLI_DYNAMIC_SHORTOPTS, longopts, NULL)) !=
	       -1) {
		if (opt == '?' || opt == ':') {
			cli_bad_option("attach", argc, argv);
			return -1;
		}
		int rc = cli_dynamic_option(&o->engine, opt, optarg);
		if (rc < 0 || (rc == 0 && parse_option(o, opt) < 0))
			return -1;
	}
	if (optind < argc) {
		cli_error("attach: unexpected argument '%s' (see 'calltrace attach --help')",
			  argv[optind]);
		return -1;
	}
	if (o->engine.dyn.pid == 0) {
		cli_error("attach: which process? give -p PID (see 'calltrace attach --help')");
		return -1;
	}
	return 0;
}

/* A refused attach leaves no trace behind (a regular file only: never
 * a device given as -o). */
static void remove_trace(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

/* Says what became of the trace; the command's exit status. */
static int report(const struct attach_options *o, int rc)
{
	pid_t pid = o->engine.dyn.pid;
	switch (rc) {
	case ATTACH_DETACHED:
		cli_error("detached from process %d; trace written to %s", (int)pid, o->output);
		return 0;
	case ATTACH_TARGET_EXITED:
		cli_error("trace written to %s", o->output);
		return 0;
	case ATTACH_REFUSED:
		remove_trace(o->output);
		return 1;
	default:
		cli_error("trace (as far as it got) written to %s", o->output);
		return 1;
	}
}

int cmd_attach(int argc, char **argv)
{
	struct attach_options o;
	struct trace_session s;
	char command[2048];
	memset(&o, 0, sizeof(o));
	if (parse_options(&o, argc, argv) < 0) {
		cli_dynamic_free(&o.engine);
		return 2;
	}
	if (dynamic_attach_check(o.engine.dyn.pid) < 0) {
		cli_dynamic_free(&o.engine);
		return 1;
	}
	size_t command_len = dynamic_read_cmdline(o.engine.dyn.pid, command, sizeof(command));
	if (trace_session_create(&s, o.output, command, command_len, 0) < 0) {
		cli_error("cannot write trace %s: %s", o.output, strerror(errno));
		cli_dynamic_free(&o.engine);
		return 2;
	}
	o.engine.dyn.session = &s;
	int rc = dynamic_attach(&o.engine.dyn);
	trace_session_close(&s);
	cli_dynamic_free(&o.engine);
	return report(&o, rc);
}
