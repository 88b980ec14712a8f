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

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_FILTER_LONGOPTS,
		{"sort", required_argument, 0, 's'},
		{"limit", required_argument, 0, 'n'},
		{"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},
		{0, 0, 0, 0}};
	struct cli_trace t = {0};
	const char *output = NULL;
	int sort = SORT_TOTAL, opt, rc;
	size_t limit = 0;
	char *end;
	while ((opt = getopt_long(argc, argv, CLI_FILTER_SHORTOPTS "s:n:o:h", longopts, NULL)) !=
	       -1) {
		if ((rc = cli_filter_option(&t, opt, optarg)) != 0) {
			if (rc < 0)
				return 2;
			continue;
		}
		switch (opt) {
		case 's':
			if ((sort = report_sort_parse(optarg)) < 0) {
				cli_error("unknown sort key '%s' (total, self, calls, avg, min, max, name)",
					  optarg);
				return 2;
			}
			break;
		case 'n':
			limit = strtoul(optarg, &end, 10);
			if (*end || end == optarg) {
				cli_error("bad limit '%s'", optarg);
				return 2;
			}
			break;
		case 'o': output = optarg; break;
		case 'h': report_usage(stdout); return 0;
		default: return cli_bad_option("report", argc, argv);
		}
	}
	if (cli_trace_open(&t, argc, argv, optind) < 0)
		return 1;
	FILE *out = cli_output_open(output);
	if (!out) {
		cli_trace_close(&t);
		return 1;
	}
	struct report *rp = report_new();
	struct walk_consumer c;
	report_consumer(rp, &c);
	cli_trace_walk(&t, &c, NULL);
	report_write(rp, out, (enum report_sort)sort, limit);
	report_free(rp);
	rc = cli_output_close(out, output);
	cli_trace_close(&t);
	return rc < 0 ? 1 : 0;
}
