/*
 * cmd_crash.c - `calltrace crash`: what the program was doing when it crashed;
 * and the same report on stderr when `record` ends, for the ptrace engine
 * (the runtime's engines say it from inside the program as it dies).
 */
#include "cli.h"
#include "../views/text_views.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void crash_usage(FILE *out)
{
	fprintf(out, "usage: calltrace crash [OPTIONS] [TRACE]\n\n"
		     "For every fatal signal recorded (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,\n"
		     "SIGTRAP), by any engine: the signal, whether it was the stack overflowing,\n"
		     "the function and line it hit, the calls open at that moment (innermost\n"
		     "first; a recursion on one line with its count) and the last calls\n"
		     "completed before it.  Says so when the trace holds no crash.\n\n"
		     "options:\n" CLI_FILTER_HELP
		     "  -o, --output FILE      write to FILE instead of standard output\n"
		     "  -h, --help             this help\n");
}

static int write_crash(struct cli_trace *t, FILE *out, void *ctx)
{
	(void)ctx;
	struct crash_report *cr = crash_report_new(out, t->reader, t->symbols);
	if (!cr) {
		cli_error("out of memory");
		return -1;
	}
	struct walk_consumer c;
	crash_report_consumer(cr, &c);
	cli_trace_walk(t, &c, NULL);
	if (crash_report_count(cr) == 0)
		fprintf(out, "no crash recorded in %s\n", t->reader->path);
	crash_report_free(cr);
	return 0;
}

/* Every line of `text` on stderr as "calltrace: LINE". */
static void say_lines(char *text)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		cli_error("%s", line);
}

void cli_say_crashes(const char *trace)
{
	struct cli_trace t = {0};
	char *path = (char *)trace, *argv[] = {"crash", path, NULL};
	optind = 1;
	if (cli_trace_open(&t, 2, argv, 1) < 0)
		return;
	char *text = NULL;
	size_t len = 0;
	FILE *out = t.reader->ncrashes ? open_memstream(&text, &len) : NULL;
	if (out) {
		write_crash(&t, out, NULL);
		fclose(out);
		say_lines(text);
		cli_error("see: calltrace crash %s", trace);
	}
	free(text);
	cli_trace_close(&t);
}

int cmd_crash(int argc, char **argv)
{
	return cli_view_command(argc, argv, "crash", crash_usage, write_crash);
}
