/*
 * cmd_attach.c - `calltrace attach`: record the calls of a running process
 * without recompiling it, then detach and leave it running as before.  A
 * dynamically linked process gets the in-process engine (the runtime
 * library loaded into it, function entries patched there); any other, or
 * --engine ptrace, the ptrace engine.
 */
#include "cli.h"
#include "record.h"
#include "../ptrace/dynamic.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_DURATION_NS (1ull << 62) /* about 146 years */

#define OPT_ENGINE 0x1101
#define OPT_ARGS 0x1102
#define OPT_SYSCALLS 0x1103
#define OPT_SCHED 0x1104
#define OPT_NO_LIBCALL 0x1105
#define OPT_NEST_LIBCALL 0x1106
#define OPT_RING 0x1107
#define OPT_TIME_FILTER 0x1108
#define OPT_NO_OWN_LIBRARIES 0x1109

enum attach_engine { ATTACH_AUTO, ATTACH_PATCH, ATTACH_PTRACE };

struct attach_options {
	const char *output;
	struct cli_dynamic engine;
	enum attach_engine engine_choice;
	const char *module, *only, *hide; /* as given, for the in-process engine */
	const char *args_filter;	  /* --args=REGEX as given */
	int syscalls, sched;		  /* --syscalls, --sched */
	int no_own_libraries;		  /* --no-own-libraries */
	uint64_t ring;			  /* --ring SIZE; 0: the trace grows */
};

static void attach_usage(FILE *out)
{
	fprintf(out,
		"usage: calltrace attach -p PID [OPTIONS]\n\n"
		"Records the function calls of the running process PID (every thread)\n"
		"without recompiling it, until --duration has passed, Ctrl-C, or the\n"
		"process exits (as it starts, it says what it attached to and how to stop).\n"
		"Then the process runs on as before.\n\n"
		"A dynamically linked process gets the in-process engine: the runtime\n"
		"library is loaded into it, function entries are patched while every\n"
		"thread is stopped, and calls run at full speed; at the end every entry\n"
		"is put back (the library stays loaded).  Children it forks meanwhile are\n"
		"traced too, until the detach.  Other processes, or --engine ptrace, get the "
		"ptrace engine:\n"
		"breakpoints, forked children followed; the process and calltrace then\n"
		"share one CPU (CALLTRACE_NO_PIN=1 keeps the affinities as they are).\n\n"
		"Killing calltrace (kill -9 too) leaves the process as it was: a child of\n"
		"it traces, and detaches when calltrace dies; if that child is killed\n"
		"instead, calltrace puts the in-process engine's entries back (the\n"
		"ptrace engine's breakpoints only their tracer can remove).\n\n"
		"options:\n"
		"  -p, --pid PID          the process to trace\n"
		"  -o, --output FILE      trace file (default " DEFAULT_TRACE ")\n"
		"  -d, --duration DUR     stop after DUR (e.g. 500ms, 5s, 1m; a bare number\n"
		"                         is seconds)\n"
		"      --module REGEX     also instrument shared libraries matching REGEX\n"
		"      --no-own-libraries the in-process engine records the program alone (and\n"
		"                         --module's libraries).  Default: also the shared\n"
		"                         libraries and plugins that are the program's own,\n"
		"                         those outside /lib, /usr/lib, /usr/local/lib and the\n"
		"                         folders below them (-v says which, and why)\n"
		"  -F, --filter REGEX     record only the calls of functions matching REGEX and\n"
		"                         what they call\n"
		"  -N, --notrace REGEX    do not instrument functions matching REGEX\n"
		"      --args[=REGEX]     record arguments and return values (types from\n"
		"                         DWARF: build with -g), of every function or of\n"
		"                         those matching REGEX\n"
		"  -t, --time-filter DUR  record only the calls that last at least DUR (e.g.\n"
		"                         500us, 20ms) and the calls they are made from\n"
		"                         (in-process engine only)\n"
		"      --engine ENGINE    patch (in-process) or ptrace, instead of the choice\n"
		"                         above\n"
		"      --no-follow        do not follow forked children\n"
		"      --syscalls         also record every system call of the process's\n"
		"                         threads and children, from the kernel's tracepoints\n"
		"                         (root or CAP_PERFMON); the tracer's own are left\n"
		"                         out (in-process engine: marked by two unknown\n"
		"                         system calls, see record --help)\n"
		"      --sched            also record when each thread was off the CPU\n"
		"      --ring SIZE        flight recorder: the trace never grows past SIZE\n"
		"                         (e.g. 64M), keeping each thread's most recent\n"
		"                         calls (see record --help; not with --syscalls)\n"
		"      --no-libcall       do not record the calls into shared libraries\n"
		"                         (recorded by default, at the GOT slot they go through)\n"
		"      --nest-libcall LIB[,LIB]  also record the calls these libraries make\n"
		"                         into other libraries\n"
		"  -v, --verbose          say which engine and why, what is instrumented,\n"
		"                         and how long the detach took\n"
		"  -h, --help             this help\n");
}

static int parse_pid(const char *arg, pid_t *pid)
{
	char *end;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end || v <= 0 || v > 0x3fffffff) {
		cli_error("bad PID '%s'", arg);
		return -1;
	}
	*pid = (pid_t)v;
	return 0;
}

/* A duration for --duration: finite, more than nothing, a bare number
 * taken as seconds; 0 or -1. */
static int parse_attach_duration(const char *arg, uint64_t *ns)
{
	char *unit, one[16];
	uint64_t unit_ns;
	double v = strtod(arg, &unit);
	if (unit == arg || !isfinite(v) || v <= 0)
		return -1;
	if (*unit == '\0')
		unit = "s";
	/* The unit alone, to know the largest count that fits. */
	snprintf(one, sizeof(one), "1%s", unit);
	if (strlen(unit) > 2 || cli_parse_duration(one, &unit_ns) < 0 ||
	    v * (double)unit_ns >= (double)MAX_DURATION_NS)
		return -1;
	*ns = (uint64_t)(v * (double)unit_ns + 0.5);
	return *ns > 0 ? 0 : -1;
}

/* --time-filter: handed on to the runtime (inprocess_attach.c) as the
 * tool's environment has it, in nanoseconds. */
static int set_time_filter(const char *arg)
{
	uint64_t ns;
	char value[32];
	if (cli_parse_duration(arg, &ns) < 0 || ns == 0) {
		cli_error("bad --time-filter '%s' (a duration above 0, e.g. 500us, 20ms, 1s)", arg);
		return -1;
	}
	snprintf(value, sizeof(value), "%" PRIu64 "ns", ns);
	return setenv("CALLTRACE_TIME_FILTER", value, 1);
}

static int parse_option(struct attach_options *o, int opt)
{
	switch (opt) {
	case 'p':
		return parse_pid(optarg, &o->engine.dyn.pid);
	case 'o':
		o->output = optarg;
		return 0;
	case 'd':
		if (parse_attach_duration(optarg, &o->engine.dyn.duration_ns) < 0) {
			cli_error("bad duration '%s': more than 0 and finite, e.g. 500ms, 5s, 1m",
				  optarg);
			return -1;
		}
		return 0;
	case OPT_ENGINE:
		if (strcmp(optarg, "patch") == 0)
			o->engine_choice = ATTACH_PATCH;
		else if (strcmp(optarg, "ptrace") == 0)
			o->engine_choice = ATTACH_PTRACE;
		else {
			cli_error("bad --engine '%s' (patch or ptrace)", optarg);
			return -1;
		}
		return 0;
	case OPT_ARGS:
		o->engine.dyn.capture_args = 1;
		o->args_filter = optarg;
		return optarg && cli_compile_regex(&o->engine.args_re, &o->engine.dyn.args_only,
						   optarg, "--args") < 0
			   ? -1
			   : 0;
	case OPT_SYSCALLS:
		o->syscalls = 1;
		return 0;
	case OPT_NO_OWN_LIBRARIES:
		o->no_own_libraries = 1;
		return 0;
	case OPT_SCHED:
		o->sched = 1;
		return 0;
	case OPT_RING:
		if (trace_ring_parse_size(optarg, &o->ring) < 0) {
			cli_error("bad --ring '%s' (a size from 64K, e.g. 16M)", optarg);
			return -1;
		}
		return 0;
	/* Library calls: the in-process attach hands these on to the runtime
	 * (inprocess_attach.c) as the tool's environment has them. */
	case 't':
	case OPT_TIME_FILTER:
		return set_time_filter(optarg);
	case OPT_NO_LIBCALL:
		return setenv("CALLTRACE_LIBCALL", "0", 1);
	case OPT_NEST_LIBCALL:
		return setenv("CALLTRACE_LIBCALL_NESTED", optarg, 1);
	case 'h':
		attach_usage(stdout);
		exit(0);
	}
	return -1;
}

/* The regular expressions as given, for the in-process engine. */
static void keep_filter_text(struct attach_options *o, int opt)
{
	if (opt == CLI_OPT_MODULE)
		o->module = optarg;
	else if (opt == 'F')
		o->only = optarg;
	else if (opt == 'N')
		o->hide = optarg;
}

static int parse_options(struct attach_options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"pid", required_argument, 0, 'p'},
	    {"output", required_argument, 0, 'o'},
	    {"duration", required_argument, 0, 'd'},
	    {"engine", required_argument, 0, OPT_ENGINE},
	    {"args", optional_argument, 0, OPT_ARGS},
	    {"syscalls", no_argument, 0, OPT_SYSCALLS},
	    {"sched", no_argument, 0, OPT_SCHED},
	    {"no-libcall", no_argument, 0, OPT_NO_LIBCALL},
	    {"nest-libcall", required_argument, 0, OPT_NEST_LIBCALL},
	    {"ring", required_argument, 0, OPT_RING},
	    {"time-filter", required_argument, 0, OPT_TIME_FILTER},
	    {"no-own-libraries", no_argument, 0, OPT_NO_OWN_LIBRARIES},
	    CLI_DYNAMIC_LONGOPTS,
	    {"help", no_argument, 0, 'h'},
	    {0, 0, 0, 0}};
	int opt;
	o->output = DEFAULT_TRACE;
	o->engine.dyn.follow_forks = 1;
	while ((opt = getopt_long(argc, argv, ":p:o:d:t:h" CLI_DYNAMIC_SHORTOPTS, longopts,
				  NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			cli_bad_option("attach", argc, argv);
			return -1;
		}
		int rc = cli_dynamic_option(&o->engine, opt, optarg);
		if (rc < 0 || (rc == 0 && parse_option(o, opt) < 0))
			return -1;
		keep_filter_text(o, opt);
	}
	if (optind < argc) {
		cli_error("attach: unexpected argument '%s' (see 'calltrace attach --help')",
			  argv[optind]);
		return -1;
	}
	if (o->engine.dyn.pid == 0) {
		cli_error("attach: which process? give -p PID (see 'calltrace attach --help')");
		return -1;
	}
	if (o->ring && (o->syscalls || o->sched)) {
		cli_error("attach: --ring keeps the program's calls only: not with --syscalls or "
			  "--sched");
		return -1;
	}
	return 0;
}

/* A refused attach leaves no trace behind (a regular file only: never
 * a device given as -o). */
static void remove_trace(const char *path)
{
	struct stat st;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
		unlink(path);
}

/* Says what became of the trace; the command's exit status. */
static int report(const struct attach_options *o, int rc)
{
	pid_t pid = o->engine.dyn.pid;
	switch (rc) {
	case ATTACH_DETACHED:
		cli_error("detached from process %d; trace written to %s", (int)pid, o->output);
		return 0;
	case ATTACH_TARGET_EXITED:
		cli_error("trace written to %s", o->output);
		return 0;
	case ATTACH_REFUSED:
		remove_trace(o->output);
		return 1;
	default: /* a crash of the process is said as record says it */
		cli_say_crashes(o->output);
		cli_error("trace (as far as it got) written to %s", o->output);
		return 1;
	}
}

/* The in-process engine when it can be had (or was asked for), else
 * ptrace; 1 for in-process, 0 for ptrace, -1 when the one asked for
 * cannot be. */
static int pick_inprocess(const struct attach_options *o, char *runtime, size_t len)
{
	char why[PATH_MAX + 128];
	const char *time_filter = getenv("CALLTRACE_TIME_FILTER");
	if (o->engine_choice == ATTACH_PTRACE && time_filter && *time_filter) {
		cli_error("--time-filter is for the in-process engine, not the ptrace engine");
		return -1;
	}
	if (o->engine_choice == ATTACH_PTRACE) {
		if (o->engine.dyn.verbose)
			cli_error("engine: ptrace engine (breakpoints), as --engine says");
		return 0;
	}
	int found = cli_find_runtime(runtime, len) == 0;
	int possible =
	    inprocess_attach_possible(o->engine.dyn.pid, found ? runtime : NULL, why, sizeof(why));
	if (possible < 0 && (o->engine_choice == ATTACH_PATCH || (time_filter && *time_filter))) {
		cli_error("attach: the in-process engine cannot be used: %s", why);
		return -1;
	}
	if (o->engine.dyn.verbose)
		cli_error(possible == 0 ? "engine: in-process engine (function entries patched), "
					  "since %s"
					: "engine: ptrace engine (breakpoints), since %s",
			  why);
	return possible == 0;
}

static struct inprocess_options inprocess_options(const struct attach_options *o,
						  const char *runtime)
{
	return (struct inprocess_options){.pid = o->engine.dyn.pid,
					  .duration_ns = o->engine.dyn.duration_ns,
					  .runtime = runtime,
					  .module = o->module,
					  .no_own_libraries = o->no_own_libraries,
					  .only = o->only,
					  .hide = o->hide,
					  .follow_forks = o->engine.dyn.follow_forks,
					  .capture_args = o->engine.dyn.capture_args,
					  .args_filter = o->args_filter,
					  .kernel = o->syscalls || o->sched,
					  .verbose = o->engine.dyn.verbose};
}

/* What the attach's two processes share (attach_guard.c). */
struct attach_job {
	struct attach_options *o;
	int inprocess;
	char runtime[PATH_MAX];
};

/* The threads of process `pid` now, into tids (at most max); how many. */
static int list_threads(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	int n = 0;
	for (struct dirent *e; d && n < max && (e = readdir(d));)
		if (e->d_name[0] != '.')
			tids[n++] = (pid_t)atoi(e->d_name);
	if (d)
		closedir(d);
	if (n == 0)
		tids[n++] = pid;
	return n;
}

/* --syscalls, --sched: the kernel's events of every thread of the process
 * (and of what they start), for the time of the attach.  (Threads are
 * listed, then their events opened: one that a listed thread starts in
 * between inherits nothing and is missed.  Adding the threads found
 * afterwards would record twice those that did inherit.) */
static struct kernel_collector *start_kernel(const struct attach_options *o,
					     struct trace_session *s)
{
	if (!o->syscalls && !o->sched)
		return NULL;
	static pid_t tids[4096];
	int n = list_threads(o->engine.dyn.pid, tids, 4096);
	return record_kernel_start(s, o->syscalls, o->sched, o->engine.dyn.verbose, tids, n, 0);
}

/* Whether we may trace process `pid`: opening its memory takes the
 * kernel's ptrace-attach check (Yama's too). */
static int may_trace(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* One line as the attach starts: the process, its program, the engine,
 * and how it stops; not when the engine is about to refuse, which says
 * why in its own one line. */
static void say_start(const struct attach_options *o, int inprocess, const char *command,
		      size_t command_len)
{
	if (!may_trace(o->engine.dyn.pid))
		return;
	char program[256] = "";
	if (command_len > 0)
		snprintf(program, sizeof(program), "%.*s", (int)strnlen(command, command_len),
			 command);
	const char *engine = inprocess ? "in-process" : "ptrace";
	uint64_t ns = o->engine.dyn.duration_ns;
	if (ns)
		cli_error("attaching to process %d (%s) with the %s engine: recording for %gs, "
			  "Ctrl-C stops sooner",
			  (int)o->engine.dyn.pid, *program ? program : "?", engine,
			  (double)ns / 1e9);
	else
		cli_error("attaching to process %d (%s) with the %s engine: Ctrl-C or --duration "
			  "to stop",
			  (int)o->engine.dyn.pid, *program ? program : "?", engine);
}

/* The attach itself: creates the trace, records, detaches, says how it
 * went; the command's exit status. */
static int attach_work(void *arg)
{
	struct attach_job *job = arg;
	struct attach_options *o = job->o;
	struct trace_session s;
	char command[2048];
	size_t command_len = dynamic_read_cmdline(o->engine.dyn.pid, command, sizeof(command));
	record_kernel_clock(o->syscalls, o->sched, o->engine.dyn.verbose);
	if (trace_session_create(&s, o->output, command, command_len, 0) < 0) {
		cli_error("cannot write trace %s: %s", o->output, trace_session_refusal(&s, errno));
		return 2;
	}
	char filters[sizeof(s.header->filters)] = "";
	if (o->only)
		cli_append(filters, sizeof(filters), " -F '%s'", o->only);
	if (o->hide)
		cli_append(filters, sizeof(filters), " -N '%s'", o->hide);
	if (o->no_own_libraries)
		cli_append(filters, sizeof(filters), " --no-own-libraries");
	trace_session_note_filters(&s, filters[0] ? filters + 1 : filters);
	if (o->ring && trace_session_make_ring(&s, o->ring) < 0) {
		cli_error("cannot make %s a ring: %s", s.path, trace_ring_refusal(errno));
		trace_session_close(&s);
		unlink(s.path); /* made just now, and nothing in it */
		return 2;
	}
	cli_say_placement(&s, o->output);
	o->output = s.path;
	say_start(o, job->inprocess, command, command_len);
	struct kernel_collector *kc = start_kernel(o, &s);
	int rc;
	if (job->inprocess) {
		struct inprocess_options io = inprocess_options(o, job->runtime);
		rc = dynamic_attach_inprocess(&io, &s);
	} else {
		o->engine.dyn.session = &s;
		rc = dynamic_attach(&o->engine.dyn);
	}
	record_kernel_stop(kc, 0);
	trace_session_close(&s);
	return report(o, rc);
}

/* The process that attached was killed: the process it traced is put
 * back as far as it can be. */
static int attach_rescue(void *arg, int sig)
{
	struct attach_job *job = arg;
	const struct attach_options *o = job->o;
	int pid = (int)o->engine.dyn.pid;
	if (!job->inprocess) {
		cli_error("the tracer of process %d was killed by signal %d (%s): the breakpoints "
			  "it left there may kill it",
			  pid, sig, strsignal(sig));
		return 1;
	}
	struct inprocess_options io = inprocess_options(o, job->runtime);
	if (dynamic_attach_inprocess_rescue(&io) < 0) {
		cli_error("the attach to process %d was killed by signal %d (%s), and its entries "
			  "could not all be put back",
			  pid, sig, strsignal(sig));
		return 1;
	}
	cli_error("the attach to process %d was killed by signal %d (%s): recording stopped "
		  "and every entry put back; trace (as far as it got) written to %s",
		  pid, sig, strsignal(sig), o->output);
	return 1;
}

int cmd_attach(int argc, char **argv)
{
	struct attach_options o;
	struct attach_job job;
	memset(&o, 0, sizeof(o));
	if (parse_options(&o, argc, argv) < 0) {
		cli_dynamic_free(&o.engine);
		return 2;
	}
	if (dynamic_attach_check(o.engine.dyn.pid) < 0) {
		cli_dynamic_free(&o.engine);
		return 1;
	}
	job.o = &o;
	job.inprocess = pick_inprocess(&o, job.runtime, sizeof(job.runtime));
	if (job.inprocess < 0) {
		cli_dynamic_free(&o.engine);
		return 1;
	}
	int rc = attach_guarded(attach_work, attach_rescue, &job);
	cli_dynamic_free(&o.engine);
	return rc;
}
