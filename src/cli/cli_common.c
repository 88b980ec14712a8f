/*
 * cli_common.c - what the subcommands share (see cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_error(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fputs("calltrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_bad_option(const char *command, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
	if (optopt && optopt < 0x100 && (arg[0] != '-' || arg[1] == '-' || !strchr(arg, optopt)))
		arg = "";
	if (optopt && optopt < 0x100 && !*arg)
		cli_error("%s: bad or incomplete option '-%c' (see 'calltrace %s --help')", command,
			  optopt, command);
	else
		cli_error("%s: bad or incomplete option '%s' (see 'calltrace %s --help')", command,
			  arg, command);
	return 2;
}

int cli_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			*ns = (uint64_t)(v * units[i].scale + 0.5);
			return 0;
		}
	}
	return -1;
}

const char *cli_format_duration(uint64_t ns, char *buf, size_t len)
{
	static const char *units[] = {"ns", "us", "ms", " s"};
	double v = (double)ns;
	int u = 0;
	if (ns < 1000) {
		snprintf(buf, len, "%7llu ns", (unsigned long long)ns);
		return buf;
	}
	while (v >= 1000 && u < 3) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%7.3f %s", v, units[u]);
	return buf;
}

static int parse_id_list(const char *arg, uint32_t *ids, uint32_t *n, const char *what)
{
	char *copy = strdup(arg), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v = strtoul(tok, &end, 10);
		if (*end || end == tok || *n >= WALK_MAX_IDS) {
			cli_error("bad %s list '%s'", what, arg);
			rc = -1;
			break;
		}
		ids[(*n)++] = (uint32_t)v;
	}
	free(copy);
	return rc;
}

int cli_compile_regex(regex_t *re, regex_t **slot, const char *arg, const char *opt)
{
	char msg[128];
	if (*slot) {
		cli_error("%s given twice (use one regex with |)", opt);
		return -1;
	}
	int rc = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	if (rc != 0) {
		regerror(rc, re, msg, sizeof(msg));
		cli_error("bad regex '%s' for %s: %s", arg, opt, msg);
		return -1;
	}
	*slot = re;
	return 0;
}

int cli_filter_option(struct cli_trace *t, int opt, const char *arg)
{
	struct walk_filters *f = &t->filters;
	char *end;
	switch (opt) {
	case 'F':
		return cli_compile_regex(&t->only_re, &f->only, arg, "-F") < 0 ? -1 : 1;
	case 'N':
		return cli_compile_regex(&t->hide_re, &f->hide, arg, "-N") < 0 ? -1 : 1;
	case 'D':
		f->max_depth = (uint32_t)strtoul(arg, &end, 10);
		if (*end || end == arg || f->max_depth == 0) {
			cli_error("bad depth '%s' (want a number above 0)", arg);
			return -1;
		}
		return 1;
	case 't':
		if (cli_parse_duration(arg, &f->min_duration_ns) < 0) {
			cli_error("bad duration '%s' (e.g. 500ns, 10us, 2ms, 1s)", arg);
			return -1;
		}
		return 1;
	case CLI_OPT_TID:
		return parse_id_list(arg, f->tids, &f->ntids, "--tid") < 0 ? -1 : 1;
	case CLI_OPT_PID:
		return parse_id_list(arg, f->pids, &f->npids, "--pid") < 0 ? -1 : 1;
	}
	return 0;
}

int cli_trace_open(struct cli_trace *t, int argc, char **argv, int optind)
{
	char err[512];
	if (argc - optind > 1) {
		cli_error("one trace file at a time (got '%s' and '%s')", argv[optind],
			  argv[optind + 1]);
		return -1;
	}
	const char *path = optind < argc ? argv[optind] : DEFAULT_TRACE;
	t->reader = trace_reader_open(path, err, sizeof(err));
	if (!t->reader) {
		cli_error("%s", err);
		return -1;
	}
	if (t->reader->nthreads == 0 && t->reader->nproblems > 0) {
		cli_error("%s: no readable events (%s at offset %llu)", path,
			  t->reader->problems[0].message,
			  (unsigned long long)t->reader->problems[0].offset);
		cli_trace_close(t);
		return -1;
	}
	t->symbols = symbol_table_new();
	return 0;
}

void cli_trace_close(struct cli_trace *t)
{
	if (t->filters.only)
		regfree(&t->only_re);
	if (t->filters.hide)
		regfree(&t->hide_re);
	t->filters.only = t->filters.hide = NULL;
	if (t->symbols)
		symbol_table_free(t->symbols);
	trace_reader_close(t->reader);
	t->symbols = NULL;
	t->reader = NULL;
}

/* Problems found while reading are worth a word, once, at the end. */
static void report_problems(const struct trace_reader *r)
{
	if (r->nproblems == 0)
		return;
	cli_error("warning: %s: %zu problem%s in the trace, first at offset %llu: %s (see "
		  "'calltrace info')",
		  r->path, r->nproblems, r->nproblems == 1 ? "" : "s",
		  (unsigned long long)r->problems[0].offset, r->problems[0].message);
}

/* Progress on a terminal: a thread that wakes up every half second and,
 * once the walk has taken a second, shows how far it got. */
struct progress {
	pthread_t thread;
	struct walk_stats *stats;
	uint64_t expected_events;
	int done, shown;
	pthread_mutex_t lock;
	pthread_cond_t wake;
};

static void *progress_main(void *arg)
{
	struct progress *p = arg;
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	pthread_mutex_lock(&p->lock);
	for (int ticks = 0; !p->done; ticks++) {
		deadline.tv_nsec += 500000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &deadline);
		if (p->done || ticks < 1)
			continue;
		uint64_t done = __atomic_load_n(&p->stats->events, __ATOMIC_RELAXED);
		double pct =
		    p->expected_events ? 100.0 * (double)done / (double)p->expected_events : 0;
		fprintf(stderr, "\rcalltrace: %llu events read (%.0f%%)  ",
			(unsigned long long)done, pct > 99 ? 99 : pct);
		p->shown = 1;
	}
	pthread_mutex_unlock(&p->lock);
	if (p->shown)
		fputs("\r\033[K", stderr);
	return NULL;
}

int cli_trace_walk(struct cli_trace *t, const struct walk_consumer *c, struct walk_stats *stats)
{
	struct walk_stats local;
	struct progress p = {.stats = stats ? stats : &local,
			     .expected_events = t->reader->event_bytes / 2,
			     .lock = PTHREAD_MUTEX_INITIALIZER,
			     .wake = PTHREAD_COND_INITIALIZER};
	int progress = isatty(2) && pthread_create(&p.thread, NULL, progress_main, &p) == 0;
	int rc = walker_run(t->reader, t->symbols, &t->filters, c, p.stats);
	if (progress) {
		pthread_mutex_lock(&p.lock);
		p.done = 1;
		pthread_cond_signal(&p.wake);
		pthread_mutex_unlock(&p.lock);
		pthread_join(p.thread, NULL);
	}
	if (!t->problems_reported)
		report_problems(t->reader);
	t->problems_reported = 1;
	return rc;
}

FILE *cli_output_open(const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		cli_error("cannot write %s: %s", path, strerror(errno));
	return f;
}

int cli_output_close(FILE *f, const char *path)
{
	int failed = ferror(f);
	if (f == stdout)
		failed |= fflush(f) != 0;
	else
		failed |= fclose(f) != 0;
	if (failed) {
		cli_error("error writing %s", path && strcmp(path, "-") ? path : "standard output");
		return -1;
	}
	return 0;
}

int cli_shared_option(struct cli_trace *t, int opt, const char *arg, const char **output,
		      void (*usage)(FILE *), const char *command, int argc, char **argv)
{
	int rc = cli_filter_option(t, opt, arg);
	if (rc < 0)
		return 2;
	if (rc > 0)
		return CLI_OPTION_TAKEN;
	switch (opt) {
	case 'o':
		*output = arg;
		return CLI_OPTION_TAKEN;
	case 'h':
		usage(stdout);
		return 0;
	case '?':
	case ':':
		return cli_bad_option(command, argc, argv);
	}
	return CLI_OPTION_OWN;
}

int cli_run_view(struct cli_trace *t, int argc, char **argv, const char *output, int announce,
		 cli_view_writer write, void *ctx)
{
	if (cli_trace_open(t, argc, argv, optind) < 0)
		return 1;
	FILE *out = cli_output_open(output);
	int rc = out ? write(t, out, ctx) : -1;
	if (out && cli_output_close(out, output) < 0)
		rc = -1;
	else if (out && rc == 0 && announce && output && strcmp(output, "-") != 0)
		fprintf(stderr, "calltrace: wrote %s\n", output);
	cli_trace_close(t);
	return rc < 0 ? 1 : 0;
}

int cli_view_command(int argc, char **argv, const char *command, void (*usage)(FILE *),
		     cli_view_writer write)
{
	static const struct option longopts[] = {CLI_FILTER_LONGOPTS,
						 {"output", required_argument, 0, 'o'},
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	struct cli_trace t = {0};
	const char *output = NULL;
	int opt;
	while ((opt = getopt_long(argc, argv, ":" CLI_FILTER_SHORTOPTS "o:h", longopts, NULL)) !=
	       -1) {
		int rc = cli_shared_option(&t, opt, optarg, &output, usage, command, argc, argv);
		if (rc != CLI_OPTION_TAKEN)
			return rc == CLI_OPTION_OWN ? 2 : rc;
	}
	return cli_run_view(&t, argc, argv, output, 0, write, NULL);
}
