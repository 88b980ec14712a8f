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
		"Written as the trace is read, the frame list at the end.  Calls entered\n"
		"before a ring's kept calls (record --ring) have a frame of their own.\n\n"
		"options:\n" CLI_FILTER_HELP
		"  -o, --output FILE      write to FILE instead of standard output\n"
		"  -h, --help             this help\n");
}

static int write_speedscope(struct cli_trace *t, FILE *out, void *ctx)
{
	(void)ctx;
	cli_warn_big_output(t, "speedscope profile", 80.0 /* bytes a call, as measured */, NULL);
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
	return cli_view_command(argc, argv, "speedscope", speedscope_usage, write_speedscope);
}
