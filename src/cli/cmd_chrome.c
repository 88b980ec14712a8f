/*
 * cmd_chrome.c - `calltrace chrome`: Chrome Trace Event JSON, or with
 * --format proto Perfetto's native protobuf trace.
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define BYTES_PER_CALL 180.0	  /* an "X" event, as measured */
#define PROTO_BYTES_PER_CALL 40.0 /* a begin and an end packet, as measured */

static void chrome_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace chrome [OPTIONS] [TRACE]\n\n"
		"Writes the calls as Chrome Trace Event JSON: one complete (\"ph\":\"X\") event\n"
		"per call with ts and dur in microseconds, args file, line and seq, the names\n"
		"of processes and threads, and an instant (\"ph\":\"i\") event for each\n"
		"calltrace_mark() of the program.  Open it in Perfetto UI or chrome://tracing.\n"
		"Written as the trace is read: memory does not grow with the trace.\n"
		"Browsers and Perfetto's UI open files up to about 1 GB: before writing more,\n"
		"calltrace says so; cut the output with --from/--to (a window of time), -D\n"
		"(depth) or the other filters.\n\n"
		"With --format proto, writes Perfetto's native protobuf trace instead, several\n"
		"times smaller, which Perfetto's UI and trace processor load best: a slice\n"
		"begin and end per call on a track per thread under a track per process,\n"
		"function names with file and line interned, recorded arguments and return\n"
		"values and the unfinished mark as debug annotations, an instant event per\n"
		"mark.  It is binary: give -o FILE (or -o - to pipe it).\n\n"
		"options:\n" CLI_FILTER_HELP
		"      --format WHAT      json (default) or proto (Perfetto's protobuf)\n"
		"  -o, --output FILE      write to FILE instead of standard output\n"
		"  -h, --help             this help\n");
}

enum { OPT_FORMAT = 0x100 };

struct chrome_args {
	const char *output;
	uint64_t from_ns, to_ns; /* the filters' --from/--to (the views cut by them too) */
	int proto;
};

/* 0 to go on, else the exit code + 1. */
static int parse_args(int argc, char **argv, struct cli_trace *t, struct chrome_args *a)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"format", required_argument, 0, OPT_FORMAT},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc = cli_shared_option(t, opt, optarg, &a->output, chrome_usage, "chrome", argc,
					   argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc + 1;
		if (strcmp(optarg, "json") && strcmp(optarg, "proto")) {
			cli_error("unknown --format '%s' (json or proto)", optarg);
			return 3;
		}
		a->proto = optarg[0] == 'p';
	}
	a->from_ns = t->filters.from_ns;
	a->to_ns = t->filters.to_set ? t->filters.to_ns : UINT64_MAX;
	if (a->proto && !a->output && isatty(STDOUT_FILENO)) {
		cli_error("chrome --format proto writes binary: give -o FILE (or -o - to pipe it)");
		return 3;
	}
	return 0;
}

static int write_proto(struct cli_trace *t, FILE *out, const struct chrome_args *a)
{
	if (!a->from_ns && a->to_ns == UINT64_MAX)
		cli_warn_big_output(t, "Perfetto trace", PROTO_BYTES_PER_CALL, "--from/--to, ");
	struct perfetto_proto *v = perfetto_proto_new(out, a->from_ns, a->to_ns);
	int rc = -1;
	if (v) {
		struct walk_consumer c;
		struct walk_stats stats;
		perfetto_proto_consumer(v, &c);
		cli_trace_walk(t, &c, &stats);
		rc = perfetto_proto_finish(v);
		perfetto_proto_free(v);
	}
	if (rc < 0)
		cli_error("out of memory while writing the Perfetto trace");
	return rc;
}

static int write_chrome(struct cli_trace *t, FILE *out, void *ctx)
{
	const struct chrome_args *a = ctx;
	if (a->proto)
		return write_proto(t, out, a);
	if (!a->from_ns && a->to_ns == UINT64_MAX)
		cli_warn_big_output(t, "Chrome JSON", BYTES_PER_CALL, "--from/--to, ");
	struct chrome_json *v = chrome_json_new(out, t->reader, a->from_ns, a->to_ns);
	int rc = -1;
	if (v) {
		struct walk_consumer c;
		struct walk_stats stats;
		chrome_json_consumer(v, &c);
		cli_trace_walk(t, &c, &stats);
		rc = chrome_json_finish(v);
		chrome_json_free(v);
	}
	if (rc < 0)
		cli_error("out of memory while writing the trace events");
	return rc;
}

int cmd_chrome(int argc, char **argv)
{
	struct cli_trace t = {0};
	struct chrome_args a = {.to_ns = UINT64_MAX};
	int rc = parse_args(argc, argv, &t, &a);
	if (rc) {
		cli_trace_close(&t); /* the filters given before the error */
		return rc - 1;
	}
	return cli_run_view(&t, argc, argv, a.output, 0, write_chrome, &a);
}
