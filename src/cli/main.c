/*
 * main.c - the calltrace command: dispatch to a subcommand.
 */
#include "cli.h"

#include <getopt.h>
#include <string.h>

#define CALLTRACE_VERSION "0.1.0"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
    {"record", cmd_record, "run a program and record its calls"},
    {"attach", cmd_attach, "record the calls of a running process"},
    {"live", cmd_live, "run a program and show its function graph (like strace)"},
    {"replay", cmd_replay, "show the calls as a function graph with durations"},
    {"report", cmd_report, "per-function statistics: calls, total, self, avg, min, max"},
    {"diff", cmd_diff, "two traces side by side: per function, the change in calls and time"},
    {"info", cmd_info, "what a trace holds: command, processes, threads, modules"},
    {"json", cmd_json, "the call tree of every thread as JSON"},
    {"flame", cmd_flame, "ordered flame chart (interactive SVG) or folded stacks"},
    {"seq", cmd_seq, "sequence diagram (seqdiag, mermaid, plantuml, diagrams, svg)"},
    {"graph", cmd_graph, "call graph (graphviz dot, svg)"},
    {"chrome", cmd_chrome,
     "Chrome trace event JSON or Perfetto protobuf (Perfetto UI, chrome://tracing)"},
    {"speedscope", cmd_speedscope, "speedscope evented profile"},
    {"crash", cmd_crash, "what the program was doing when a fatal signal hit it"},
    {"check", cmd_check, "whether a build records every call, with names and lines"},
    {"ctl", cmd_ctl,
     "switch recording on or off, or take a snapshot, in a program run with CALLTRACE_SIGNAL"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: calltrace COMMAND [OPTIONS] [ARGS]\n"
		     "       calltrace PROGRAM [ARGS]   (calltrace live PROGRAM [ARGS])\n\n"
		     "Records every function call of a program and shows what it did.\n\n"
		     "commands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i].run)
			fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'calltrace COMMAND --help' tells more.  Reading commands take the trace\n"
		     "file as their last argument (default: " DEFAULT_TRACE ").\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0 || strcmp(name, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(name, "--version") == 0) {
		printf("calltrace " CALLTRACE_VERSION "\n");
		return 0;
	}
	opterr = 0; /* bad options are reported by cli_bad_option() */
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0 && commands[i].run)
			return commands[i].run(argc - 1, argv + 1);
	if (name[0] != '-' && live_can_run(name))
		return cmd_live(argc, argv); /* calltrace PROGRAM...: argv[0] is "calltrace" */
	cli_error("unknown command '%s' (see 'calltrace --help')", name);
	return 2;
}
