/*
 * cli_common.c - what the subcommands share (see cli.h).
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

void cli_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
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

/* "1,2,3": each a number that fits 32 bits; nothing empty. */
static int parse_id_list(const char *arg, uint32_t *ids, uint32_t *n, const char *what)
{
	char token[16];
	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");
		if (len >= sizeof(token) || *n >= WALK_MAX_IDS)
			goto bad;
		memcpy(token, p, len);
		token[len] = '\0';
		if (cli_parse_count(token, &ids[*n]) < 0)
			goto bad;
		(*n)++;
		p += len;
		if (*p == '\0')
			return 0;
	}
bad:
	cli_error("bad %s list '%s' (want numbers separated by commas, at most %d)", what, arg,
		  WALK_MAX_IDS);
	return -1;
}

static const char *const kind_names[] = {
    [CALL_FUNCTION] = "function", [CALL_LIBRARY] = "library", [CALL_SYSCALL] = "syscall",
    [CALL_OFFCPU] = "offcpu",	  [CALL_KERNEL] = "kernel",
};
#define ALL_KINDS ((1u << (sizeof(kind_names) / sizeof(kind_names[0]))) - 1)

/* The bit of kind `name` (len bytes), or 0 when it is not one. */
static uint32_t kind_bit(const char *name, size_t len)
{
	for (size_t k = 0; k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
		if (strlen(kind_names[k]) == len && strncmp(kind_names[k], name, len) == 0)
			return 1u << k;
	return 0;
}

/* --kind: "library,syscall" shows those kinds only; "-offcpu" all but
 * that one; both together: the ones named, less the excluded. */
static int parse_kinds(const char *arg, uint32_t *kinds)
{
	uint32_t shown = 0, hidden = 0;
	if (*kinds) {
		cli_error("--kind given twice (use one list: --kind=library,syscall)");
		return -1;
	}
	for (const char *p = arg;; p++) {
		int exclude = *p == '-';
		p += exclude;
		size_t len = strcspn(p, ",");
		uint32_t bit = kind_bit(p, len);
		if (!bit) {
			cli_error(
			    "bad kind '%.*s' in --kind '%s' (want function, library, syscall, "
			    "offcpu or kernel, each maybe after '-', separated by commas)",
			    (int)len, p, arg);
			return -1;
		}
		*(exclude ? &hidden : &shown) |= bit;
		p += len;
		if (*p == '\0')
			break;
	}
	*kinds = (shown ? shown : ALL_KINDS) & ~hidden;
	if (*kinds == 0) {
		cli_error("--kind '%s' leaves no kind of call to show", arg);
		return -1;
	}
	return 0;
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

/* --from or --to TIME: 1, or -1 after printing the error. */
static int parse_time_range(struct walk_filters *f, int from, const char *arg)
{
	if (cli_parse_duration(arg, from ? &f->from_ns : &f->to_ns) < 0) {
		cli_error("bad time '%s' for --%s (e.g. 1.5s, 200ms, 30us)", arg,
			  from ? "from" : "to");
		return -1;
	}
	f->to_set |= !from;
	return 1;
}

/* -F or -N: a regex, or a C++ operator's name as the views show it
 * ("Vec::operator[]", "operator()") that is no valid regex: taken as it is. */
static int compile_name_filter(regex_t *re, regex_t **slot, const char *arg, const char *opt)
{
	regex_t probe;
	if (regcomp(&probe, arg, REG_EXTENDED | REG_NOSUB) == 0) {
		regfree(&probe);
		return cli_compile_regex(re, slot, arg, opt);
	}
	if (!strstr(arg, "operator") || strlen(arg) > 1000)
		return cli_compile_regex(re, slot, arg, opt);
	char literal[2048];
	size_t n = 0;
	for (const char *p = arg; *p; p++) {
		if (strchr("\\^$.|?*+()[]{}", *p))
			literal[n++] = '\\';
		literal[n++] = *p;
	}
	literal[n] = '\0';
	return cli_compile_regex(re, slot, literal, opt);
}

int cli_filter_option(struct cli_trace *t, int opt, const char *arg)
{
	struct walk_filters *f = &t->filters;
	switch (opt) {
	case 'F':
		f->only_text = arg;
		return compile_name_filter(&t->only_re, &f->only, arg, "-F") < 0 ? -1 : 1;
	case 'N':
		f->hide_text = arg;
		return compile_name_filter(&t->hide_re, &f->hide, arg, "-N") < 0 ? -1 : 1;
	case 'D':
		if (cli_parse_count(arg, &f->max_depth) < 0 || f->max_depth == 0) {
			cli_error("bad depth '%s' (want a number above 0)", arg);
			return -1;
		}
		return 1;
	case 't': {
		int rc = cli_parse_duration(arg, &f->min_duration_ns);
		if (rc == -2)
			cli_error("bad duration '%s': longer than any call can last (at most %s)",
				  arg, CLI_DURATION_MAX_TEXT);
		else if (rc < 0)
			cli_error("bad duration '%s' (e.g. 500ns, 10us, 2ms, 1s)", arg);
		return rc < 0 ? -1 : 1;
	}
	case CLI_OPT_TID:
		return parse_id_list(arg, f->tids, &f->ntids, "--tid") < 0 ? -1 : 1;
	case CLI_OPT_PID:
		return parse_id_list(arg, f->pids, &f->npids, "--pid") < 0 ? -1 : 1;
	case CLI_OPT_KIND:
		return parse_kinds(arg, &f->kinds) < 0 ? -1 : 1;
	case CLI_OPT_FROM:
	case CLI_OPT_TO:
		return parse_time_range(f, opt == CLI_OPT_FROM, arg);
	case CLI_OPT_DEMANGLE: {
		int style = symbol_parse_name_style(arg);
		if (style < 0) {
			cli_error("bad --demangle '%s' (want simple, full or no)", arg);
			return -1;
		}
		symbol_set_name_style((enum symbol_name_style)style);
		return 1;
	}
	}
	return 0;
}

int cli_trace_open(struct cli_trace *t, int argc, char **argv, int optind)
{
	char err[512];
	if (argc - optind > 1) {
		cli_error("one trace file at a time (got '%s' and '%s')", argv[optind],
			  argv[optind + 1]);
		cli_trace_close(t);
		return -1;
	}
	if (t->filters.to_set && t->filters.from_ns > t->filters.to_ns) {
		cli_error("--from is after --to: nothing to show");
		cli_trace_close(t);
		return -1;
	}
	const char *path = optind < argc ? argv[optind] : DEFAULT_TRACE;
	t->reader = trace_reader_open(path, err, sizeof(err));
	if (!t->reader) {
		cli_error("%s", err);
		cli_trace_close(t);
		return -1;
	}
	if (t->reader->nthreads == 0 && t->reader->losses.corrupt > 0) {
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

/* Appends ", <phrase>" (no comma first) when n > 0. */
static void add_loss(char *buf, size_t len, uint64_t n, const char *one, const char *many,
		     const char *why)
{
	size_t used = strlen(buf);
	if (n == 0 || used >= len)
		return;
	snprintf(buf + used, len - used, "%s%llu %s%s", used ? ", " : "", (unsigned long long)n,
		 n == 1 ? one : many, why);
}

int cli_describe_losses(const struct trace_reader *r, const struct walk_stats *st, char *buf,
			size_t len)
{
	const struct trace_losses *l = &r->losses;
	buf[0] = '\0';
	add_loss(buf, len, l->lost_windows, "window lost", "windows lost",
		 " (disk full, or ulimit -f?)");
	add_loss(buf, len, l->missing_windows, "window missing", "windows missing", "");
	add_loss(buf, len, l->lost_calls, "call not recorded", "calls not recorded", "");
	add_loss(buf, len, l->lost_kernel_events, "kernel event lost", "kernel events lost", "");
	add_loss(buf, len, l->corrupt, "corrupt region", "corrupt regions", "");
	if (l->truncated_bytes)
		snprintf(buf + strlen(buf), len - strlen(buf), "%sfile truncated",
			 buf[0] ? ", " : "");
	if (!buf[0])
		return 0; /* whole: calls open at the end are the program's (exit, kill, crash) */
	/* Calls cut where events are missing, and those whose ends may be in
	 * what was lost. */
	if (st)
		add_loss(buf, len, st->cut + st->left_open, "call unfinished", "calls unfinished",
			 "");
	return 1;
}

void cli_warn_incomplete(const struct trace_reader *r, const struct walk_stats *st)
{
	char losses[256];
	if (cli_describe_losses(r, st, losses, sizeof(losses)))
		cli_error("warning: trace incomplete: %s; see 'calltrace info %s'", losses,
			  r->path);
}

/* Progress on a terminal (progress.h), from a thread that wakes up every
 * half second while the walk reads: the share of the trace's events read,
 * over every walk the command makes (cli_trace.passes). */
struct walk_progress {
	pthread_t thread;
	struct walk_stats *stats;
	uint64_t before, total; /* events of the walks before this one; of all */
	int done;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct progress line;
};

static void *progress_main(void *arg)
{
	struct walk_progress *p = arg;
	struct timespec deadline;
	clock_gettime(CLOCK_REALTIME, &deadline);
	pthread_mutex_lock(&p->lock);
	while (!p->done) {
		deadline.tv_nsec += 500000000;
		if (deadline.tv_nsec >= 1000000000) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->wake, &p->lock, &deadline);
		if (!p->done)
			progress_update(&p->line,
					p->before +
					    __atomic_load_n(&p->stats->events, __ATOMIC_RELAXED),
					p->total, NULL);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int cli_trace_walk(struct cli_trace *t, const struct walk_consumer *c, struct walk_stats *stats)
{
	struct walk_stats local;
	unsigned passes = t->passes ? t->passes : 1;
	/* About 1.5 bytes an event until a walk has counted them. */
	uint64_t events = t->events_seen ? t->events_seen : t->reader->event_bytes * 2 / 3;
	struct walk_progress p = {.stats = stats ? stats : &local,
				  .before = events * t->walks_done,
				  .total = events *
					   (passes > t->walks_done ? passes : t->walks_done + 1),
				  .lock = PTHREAD_MUTEX_INITIALIZER,
				  .wake = PTHREAD_COND_INITIALIZER};
	progress_begin(&p.line, "reading the trace");
	if (t->walks_done)
		p.line.start.tv_sec -= 1; /* a later walk: the command is long already */
	/* Now, if the line is due already (so that a short walk shows it too). */
	progress_update(&p.line, p.before, p.total, NULL);
	int progress = p.line.on && pthread_create(&p.thread, NULL, progress_main, &p) == 0;
	int rc = walker_run(t->reader, t->symbols, &t->filters, c, p.stats);
	if (progress) {
		pthread_mutex_lock(&p.lock);
		p.done = 1;
		pthread_cond_signal(&p.wake);
		pthread_mutex_unlock(&p.lock);
		pthread_join(p.thread, NULL);
	}
	progress_end(&p.line);
	t->walks_done++;
	t->events_seen = p.stats->events;
	if (!t->problems_reported)
		cli_warn_incomplete(t->reader, p.stats);
	t->problems_reported = 1;
	return rc;
}

/* A view's output file: created with the umask's mode, or truncated; a
 * symbolic link is not followed (it could point at anyone's file).
 * /dev/stdout and /dev/stderr, links themselves, name the streams. */
FILE *cli_output_open(const char *path)
{
	if (!path || strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return stdout;
	if (strcmp(path, "/dev/stderr") == 0)
		return stderr;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		if (errno == ELOOP)
			cli_error("cannot write %s: it is a symbolic link, which is not followed",
				  path);
		else
			cli_error("cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

int cli_output_close(FILE *f, const char *path)
{
	int failed = ferror(f);
	if (f == stdout || f == stderr)
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
	if (rc > 0)
		return CLI_OPTION_TAKEN;
	if (rc == 0 && opt == 'o') {
		*output = arg;
		return CLI_OPTION_TAKEN;
	}
	if (rc == 0 && opt != 'h' && opt != '?' && opt != ':')
		return CLI_OPTION_OWN;
	/* The command ends here: the filters given so far go. */
	cli_trace_close(t);
	if (rc < 0)
		return 2;
	if (opt == 'h') {
		usage(stdout);
		return 0;
	}
	return cli_bad_option(command, argc, argv);
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
		if (rc == CLI_OPTION_OWN) {
			cli_trace_close(&t);
			return 2;
		}
		if (rc != CLI_OPTION_TAKEN)
			return rc;
	}
	return cli_run_view(&t, argc, argv, output, 0, write, NULL);
}

/* The runtime library next to this calltrace: ../lib/ (a build tree) or
 * ../lib/calltrace/ (an installation); CALLTRACE_RUNTIME overrides. */
int cli_find_runtime(char *path, size_t len)
{
	const char *env = getenv("CALLTRACE_RUNTIME");
	if (env && *env) {
		snprintf(path, len, "%s", env);
		return access(path, R_OK);
	}
	char self[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	char *slash = strrchr(self, '/');
	*slash = '\0';
	static const char *candidates[] = {"../lib/libcalltrace.so",
					   "../lib/calltrace/libcalltrace.so"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, len, "%.*s/%s", (int)(PATH_MAX - 64), self, candidates[i]);
		char real[PATH_MAX];
		if (realpath(path, real)) {
			snprintf(path, len, "%s", real);
			return 0;
		}
	}
	return -1;
}

void cli_say_placement(const struct trace_session *s, const char *asked)
{
	char line[2 * PATH_MAX + 128];
	trace_session_placement(s, asked, line, sizeof(line));
	if (line[0])
		cli_error("%s", line);
}

static void *close_fd(void *fd)
{
	close((int)(intptr_t)fd);
	return NULL;
}

void cli_close_in_background(int fd)
{
	pthread_t t;
	pthread_attr_t attr;
	if (fd < 0)
		return;
	if (pthread_attr_init(&attr) == 0 &&
	    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
	    pthread_create(&t, &attr, close_fd, (void *)(intptr_t)fd) == 0) {
		pthread_attr_destroy(&attr);
		return;
	}
	close(fd);
}
