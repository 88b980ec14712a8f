/*
 * cmd_diff.c - `calltrace diff OLD NEW`: two recordings of a program side
 * by side, per function, with report's statistics and filters.
 */
#include "cli.h"
#include "../views/report_diff.h"
#include "../views/view_util.h"
#include "../format/printable.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void diff_usage(FILE *out)
{
	fprintf(out, "usage: calltrace diff [OPTIONS] OLD NEW\n\n"
		     "Two recordings of a program side by side: per function, calls, total and\n"
		     "self time in OLD and in NEW and the change, the largest change first.\n"
		     "Functions are matched by name (and by module and file where a name\n"
		     "repeats); those in one trace only are marked so.\n\n"
		     "options:\n" CLI_FILTER_HELP
		     "  -s, --sort KEY         by the largest change of: total (default), self,\n"
		     "                         calls, avg, min, max, oncpu (on-CPU time, when\n"
		     "                         the traces have off-CPU intervals); or by name\n"
		     "  -n, --limit N          show the first N functions only\n"
		     "  -f, --format FORMAT    text (default) or json\n"
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "  -h, --help             this help\n");
}

/* One trace of the two, walked into its per-function statistics. */
struct diff_side {
	struct cli_trace *trace;
	struct function_table *functions;
	struct diff_run run;
};

/* Opens argv[index] into s->trace (with the filters of `filters_of`, or
 * NULL: its own) and walks it; 0, or -1 after saying why. */
static int side_read(struct diff_side *s, const struct cli_trace *filters_of, char **argv,
		     int index)
{
	/* Only argv[index]: cli_trace_open takes the names from index to argc. */
	if (cli_trace_open(s->trace, index + 1, argv, index) < 0)
		return -1;
	if (filters_of)
		s->trace->filters = filters_of->filters;
	s->functions = function_table_new();
	if (!s->functions) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	function_table_consumer(s->functions, &c);
	cli_trace_walk(s->trace, &c, NULL);
	s->run.trace = argv[index];
	s->run.command = s->trace->reader->command;
	s->run.rows = function_table_rows(s->functions, &s->run.nrows);
	if (!s->run.rows) {
		cli_error("out of memory");
		return -1;
	}
	return 0;
}

/* `shared`: the filters are another side's, not to be freed here. */
static void side_close(struct diff_side *s, int shared)
{
	if (shared)
		s->trace->filters.only = s->trace->filters.hide = NULL;
	free(s->run.rows);
	function_table_free(s->functions);
	cli_trace_close(s->trace);
}

/* The program a command ran, by its file's base name, printable. */
static const char *program_of(const char *command, char *buf, size_t len)
{
	char program[PRINTABLE_PATH_MAX];
	size_t n = command ? strcspn(command, " ") : 0;
	snprintf(program, sizeof(program), "%.*s", (int)n, command ? command : "");
	return printable(view_basename(program), buf, len);
}

/* One line when the two traces ran different programs. */
static void warn_other_program(const struct diff_run *old, const struct diff_run *new)
{
	char a[256], b[256];
	const char *old_program = program_of(old->command, a, sizeof(a));
	const char *new_program = program_of(new->command, b, sizeof(b));
	if (strcmp(old_program, new_program) != 0)
		cli_error(
		    "warning: %s ran %s, %s ran %s: functions are matched by name all the same",
		    old->trace, old_program, new->trace, new_program);
}

static int run_diff(struct cli_trace *filters, char **argv, int first, const char *output,
		    const struct diff_options *o)
{
	struct cli_trace new_trace = {0};
	/* The old side owns the filters; the new one borrows them. */
	struct diff_side old = {.trace = filters}, new = {.trace = &new_trace};
	int rc = 1;
	if (side_read(&old, NULL, argv, first) < 0 || side_read(&new, filters, argv, first + 1) < 0)
		goto done;
	warn_other_program(&old.run, &new.run);
	FILE *out = cli_output_open(output);
	if (!out)
		goto done;
	int written = report_diff_write(out, &old.run, &new.run, o);
	if (written < 0)
		cli_error("out of memory");
	if (cli_output_close(out, output) == 0 && written == 0)
		rc = 0;
done:
	side_close(&new, 1);
	side_close(&old, 0);
	return rc;
}

/* Its own options: 0 when taken, or the exit status. */
static int diff_option(int opt, const char *arg, struct diff_options *o)
{
	char *end;
	int sort;
	switch (opt) {
	case 's':
		if ((sort = report_sort_parse(arg)) < 0) {
			cli_error("unknown sort key '%s' (total, self, calls, avg, min, max, name, "
				  "oncpu)",
				  arg);
			return 2;
		}
		o->sort = (enum report_sort)sort;
		return 0;
	case 'n':
		o->limit = strtoul(arg, &end, 10);
		if (*end || end == arg || *arg == '-') {
			cli_error("bad limit '%s'", arg);
			return 2;
		}
		return 0;
	case 'f':
		if (strcmp(arg, "text") && strcmp(arg, "json")) {
			cli_error("unknown format '%s' (text, json)", arg);
			return 2;
		}
		o->json = strcmp(arg, "json") == 0;
		return 0;
	}
	return 2;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"sort", required_argument, 0, 's'},
						 {"limit", required_argument, 0, 'n'},
						 {"format", required_argument, 0, 'f'},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	struct diff_options o = {SORT_TOTAL, 0, 0};
	const char *output = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "s:n:f:o:h", longopts,
				  NULL)) != -1) {
		int rc =
		    cli_shared_option(&t, opt, optarg, &output, diff_usage, "diff", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc;
		if ((rc = diff_option(opt, optarg, &o)) != 0) {
			cli_trace_close(&t);
			return rc;
		}
	}
	if (argc - optind != 2) {
		cli_error("diff: two traces wanted, OLD and NEW (got %d; see 'calltrace diff "
			  "--help')",
			  argc - optind);
		cli_trace_close(&t);
		return 2;
	}
	return run_diff(&t, argv, optind, output, &o);
}
