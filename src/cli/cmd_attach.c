/*
 * cmd_attach.c - `calltrace attach`: record the calls of a running process
 * with the dynamic engine, then detach and leave it running as before.
 */
#include "cli.h"
#include "../dynamic/dynamic.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		     "  -d, --duration DUR     stop after DUR (e.g. 500ms, 5s, 1m)\n"
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

static int parse_option(struct attach_options *o, int opt)
{
	switch (opt) {
	case 'p':
		return parse_pid(optarg, &o->engine.dyn.pid);
	case 'o':
		o->output = optarg;
		return 0;
	case 'd':
		if (cli_parse_duration(optarg, &o->engine.dyn.duration_ns) < 0) {
			cli_error("bad duration '%s' (e.g. 500ms, 5s, 1m)", optarg);
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
	if (kill(o.engine.dyn.pid, 0) < 0 && errno == ESRCH) {
		cli_error("no process with PID %d", (int)o.engine.dyn.pid);
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
	if (rc < 0)
		return 1;
	cli_error("detached from process %d; trace written to %s", (int)o.engine.dyn.pid, o.output);
	return 0;
}
