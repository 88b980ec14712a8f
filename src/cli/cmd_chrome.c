/*
 * cmd_chrome.c - `calltrace chrome`: Chrome Trace Event JSON.
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>

static void chrome_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace chrome [OPTIONS] [TRACE]\n\n"
		"Writes the calls as Chrome Trace Event JSON: one complete (\"ph\":\"X\") event\n"
		"per call with ts and dur in microseconds, args file, line and seq, and the\n"
		"names of processes and threads.  Open it in Perfetto UI or chrome://tracing.\n"
		"Written as the trace is read: memory does not grow with the trace.\n\n"
		"options:\n" CLI_FILTER_HELP
		"  -o, --output FILE      write to FILE instead of standard output\n"
		"  -h, --help             this help\n");
}

static int write_chrome(struct cli_trace *t, FILE *out, void *ctx)
{
	(void)ctx;
	struct chrome_json *v = chrome_json_new(out, t->reader);
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
	return cli_view_command(argc, argv, "chrome", chrome_usage, write_chrome);
}
