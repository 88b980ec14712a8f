/*
 * cmd_report.c - `calltrace report`: per-function statistics.
 */
#include "cli.h"
#include "../views/text_views.h"

#include <getopt.h>
#include <stdlib.h>

static void report_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace report [OPTIONS] [TRACE]\n\n"
		"Per function: calls, total time, self time, average, min and max per call,\n"
		"over every thread and process of the trace.  Library calls are named with\n"
		"their library (read@libc.so.6), system calls as [syscall] read, off-CPU\n"
		"intervals as off-cpu:blocked or off-cpu:preempted; when the trace has\n"
		"off-CPU intervals, an On-CPU column gives the total time less those inside.\n"
		"Under the table, a line for each function with calls entered before a\n"
		"ring's kept calls (record --ring) or unfinished: their times are cut short.\n\n"
		"options:\n" CLI_FILTER_HELP
		"  -s, --sort KEY         total (default), self, calls, avg, min, max, name,\n"
		"                         oncpu\n"
		"  -n, --limit N          show the first N functions only (of each kind\n"
		"                         with --by-kind)\n"
		"      --by-kind          group the functions by kind (function, library,\n"
		"                         syscall, off-CPU), each kind under its totals\n"
		"  -o, --output FILE      write to FILE instead of standard output\n"
		"  -h, --help             this help\n");
}

enum { OPT_BY_KIND = 256 };

static int write_report(struct cli_trace *t, FILE *out, void *ctx)
{
	const struct report_layout *layout = ctx;
	struct report *rp = report_new();
	if (!rp) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	report_consumer(rp, &c);
	cli_trace_walk(t, &c, NULL);
	report_write(rp, out, layout);
	report_free(rp);
	return 0;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"sort", required_argument, 0, 's'},
						 {"limit", required_argument, 0, 'n'},
						 {"by-kind", no_argument, 0, OPT_BY_KIND},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	struct report_layout a = {SORT_TOTAL, 0, 0};
	int sort;
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
		if (opt == OPT_BY_KIND)
			a.by_kind = 1;
		if (opt == 's' && (sort = report_sort_parse(optarg)) < 0) {
			cli_error("unknown sort key '%s' (total, self, calls, avg, min, max, name, "
				  "oncpu)",
				  optarg);
			cli_trace_close(&t);
			return 2;
		}
		if (opt == 's')
			a.sort = (enum report_sort)sort;
		if (opt == 'n' && ((a.limit = strtoul(optarg, &end, 10)), *end || end == optarg)) {
			cli_error("bad limit '%s'", optarg);
			cli_trace_close(&t);
			return 2;
		}
	}
	return cli_run_view(&t, argc, argv, output, 0, write_report, &a);
}
