/*
 * cmd_seq.c - `calltrace seq`: sequence diagrams in seqdiag, Mermaid,
 * PlantUML, js-sequence-diagrams ("diagrams") or SVG.
 */
#include "cli.h"
#include "../views/views.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_SVG "seq.svg"
#define DEFAULT_MAX_CALLS 500

static void seq_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace seq [OPTIONS] [TRACE]\n\n"
		"Draws the calls as a sequence diagram: participants (lifelines) are modules\n"
		"(the executable, each library and plugin, by base name), source files or\n"
		"functions: by default modules when the calls ran in several, source files\n"
		"when in one module, functions when in one source file; the diagram's title\n"
		"says which.  The main thread of each process is shown from its call of main\n"
		"(C++ static initialisers before it are left out, and the title says how\n"
		"many) unless --from-start or -F.  Messages are calls \"f()\" with\n"
		"their returns; calls within one participant are self-messages.  Each thread\n"
		"of each process has its own section headed \"pid N tid M name\"; where\n"
		"--max-calls cut a thread, a note says how many calls were left out, after\n"
		"which call, and how to see them.  A call entered before a ring's kept calls\n"
		"says so in its message; an unfinished one has a note \"unfinished: f()\".\n\n"
		"formats:\n"
		"  seqdiag    seqdiag text: render with 'seqdiag -Tsvg FILE' (default)\n"
		"  mermaid    Mermaid sequenceDiagram text\n"
		"  plantuml   PlantUML text: render with 'plantuml -tsvg FILE'\n"
		"  diagrams   js-sequence-diagrams text (A->B: f())\n"
		"  svg        SVG drawn by calltrace itself\n\n"
		"options:\n" CLI_FILTER_HELP "  -f, --format FORMAT    one of the formats above\n"
		"  -b, --by WHAT          participants: auto (default), module, file or\n"
		"                         function\n"
		"  -m, --max-calls N      at most N calls per thread (default %d; 0: all)\n"
		"      --from-start       show the calls before main too\n"
		"  -o, --output FILE      write to FILE (\"-\": standard output); default\n"
		"                         standard output, " DEFAULT_SVG " for svg\n"
		"  -h, --help             this help\n",
		DEFAULT_MAX_CALLS);
}

typedef int (*seq_writer)(const struct seq_model *m, FILE *out);

static const struct {
	const char *name;
	seq_writer write;
} formats[] = {
    {"seqdiag", seq_write_seqdiag},   {"mermaid", seq_write_mermaid},
    {"plantuml", seq_write_plantuml}, {"diagrams", seq_write_diagrams},
    {"svg", seq_write_svg},
};

static int parse_format(const char *arg, size_t *format)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (strcmp(arg, formats[i].name) == 0) {
			*format = i;
			return 0;
		}
	cli_error("unknown format '%s' (seqdiag, mermaid, plantuml, diagrams or svg)", arg);
	return -1;
}

static int parse_by(const char *arg, enum seq_by *by)
{
	if (strcmp(arg, "module") == 0)
		*by = SEQ_BY_MODULE;
	else if (strcmp(arg, "file") == 0)
		*by = SEQ_BY_FILE;
	else if (strcmp(arg, "function") == 0)
		*by = SEQ_BY_FUNCTION;
	else if (strcmp(arg, "auto") == 0)
		*by = SEQ_BY_AUTO;
	else {
		cli_error("unknown --by '%s' (auto, module, file or function)", arg);
		return -1;
	}
	return 0;
}

static int parse_count(const char *arg, uint64_t *n)
{
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	if (end == arg || *end || arg[0] == '-') {
		cli_error("bad --max-calls '%s'", arg);
		return -1;
	}
	*n = v;
	return 0;
}

struct seq_args {
	const char *output;
	size_t format;
	enum seq_by by;
	uint64_t max_calls;
	int from_start;
};

#define OPT_FROM_START 0x300

/* 0 to go on, else the exit code + 1. */
static int parse_args(int argc, char **argv, struct cli_trace *t, struct seq_args *a)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"format", required_argument, 0, 'f'},
						 {"by", required_argument, 0, 'b'},
						 {"max-calls", required_argument, 0, 'm'},
						 {"from-start", no_argument, 0, OPT_FROM_START},
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "f:b:m:o:h", longopts,
				  NULL)) != -1) {
		int rc =
		    cli_shared_option(t, opt, optarg, &a->output, seq_usage, "seq", argc, argv);
		if (rc == CLI_OPTION_TAKEN)
			continue;
		if (rc != CLI_OPTION_OWN)
			return rc + 1;
		switch (opt) {
		case 'f':
			if (parse_format(optarg, &a->format) < 0)
				return 3;
			break;
		case 'b':
			if (parse_by(optarg, &a->by) < 0)
				return 3;
			break;
		case 'm':
			if (parse_count(optarg, &a->max_calls) < 0)
				return 3;
			break;
		case OPT_FROM_START:
			a->from_start = 1;
			break;
		}
	}
	return 0;
}

int cmd_seq(int argc, char **argv)
{
	struct cli_trace t = {0};
	struct seq_args a = {.by = SEQ_BY_AUTO, .max_calls = DEFAULT_MAX_CALLS};
	int rc = parse_args(argc, argv, &t, &a);
	if (rc) {
		cli_trace_close(&t); /* the filters given before the error */
		return rc - 1;
	}
	if (cli_trace_open(&t, argc, argv, optind) < 0)
		return 1;
	struct seq_model *m = seq_model_new(a.by, a.max_calls);
	struct walk_consumer c;
	struct walk_stats stats;
	if (m) {
		seq_model_from_main(m, !a.from_start && !t.filters.only);
		seq_model_consumer(m, &c);
		cli_trace_walk(&t, &c, &stats);
		seq_model_finish(m);
	}
	if (!m || seq_model_status(m) < 0) {
		cli_error("out of memory while building the sequence diagram");
		seq_model_free(m);
		cli_trace_close(&t);
		return 1;
	}
	int svg = strcmp(formats[a.format].name, "svg") == 0;
	const char *path = a.output ? a.output : svg ? DEFAULT_SVG : "-";
	FILE *out = cli_output_open(path);
	rc = out ? formats[a.format].write(m, out) : -1;
	if (out && cli_output_close(out, path) < 0)
		rc = -1;
	else if (out && rc == 0 && svg && !a.output)
		fprintf(stderr, "calltrace: wrote %s\n", path);
	seq_model_free(m);
	cli_trace_close(&t);
	return rc < 0 ? 1 : 0;
}
