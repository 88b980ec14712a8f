/*
 * cmd_report.c - `calltrace report`: per-function statistics.
 */
#include "cli.h"
#include "../views/text_views.h"

#include <getopt.h>
#include <stdlib.h>

static void report_usage(FILE *out)
{
	fprintf(out, "usage: calltrace report [OPTIONS] [TRACE]\n\n"
		     "Per function: calls, total time, self time, average, min and max per call,\n"
		     "over every thread and process of the trace.\n\n"
		     "options:\n" CLI_FILTER_HELP
		     "  -s, --sort KEY         total (default), self, calls, avg, min, max, name\n"
		     "  -n, --limit N          show the first N functions only\n"
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "  -h, --help             this help\n");
}

struct report_args {
	int sort;
	size_t limit;
};

static int write_report(struct cli_trace *t, FILE *out, void *ctx)
{
	struct report_args *a = ctx;
	struct report *rp = report_new();
	if (!rp) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	report_consumer(rp, &c);
	cli_trace_walk(t, &c, NULL);
	report_write(rp, out, (enum report_sort)a->sort, a->limit);
	report_free(rp);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"sort", required_argument, 0, 's'},
						 {"limit", required_argument, 0, 'n'},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	struct report_args a = {SORT_TOTAL, 0};
	const char *output = NULL;
	int opt;
	char *end;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "s:n:o:h", longopts,
				  NULL)) != -1) {
		int rc =
		    cli_shared_option(&t, opt, optarg, &output, report_usage, "report", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc;
		if (opt == 's' && (a.sort = report_sort_parse(optarg)) < 0) {
			cli_error("unknown sort key '%s' (total, self, calls, avg, min, max, name)",
				  optarg);
			cli_trace_close(&t);
			return 2;
		}
		if (opt == 'n' && ((a.limit = strtoul(optarg, &end, 10)), *end || end == optarg)) {
			cli_error("bad limit '%s'", optarg);
			cli_trace_close(&t);
			return 2;
		}
	}
	return cli_run_view(&t, argc, argv, output, 0, write_report, &a);
}
