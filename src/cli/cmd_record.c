/*
 * cmd_record.c - `calltrace record`: run a program and record its calls.
 *
 * It creates the trace file, then runs the program either with the runtime
 * library preloaded (the program or its libraries are built with
 * -finstrument-functions) or under the dynamic engine (no recompiling), and
 * returns the program's own exit status (128 + signal if it was killed).
 */
#include "cli.h"
#include "record.h"
#include "../utils/sort_addresses.h"
#include "../ptrace/dynamic.h"
#include "../arch/arch.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int dynamic_record(const struct dynamic_options *o) __attribute__((weak));

static void record_usage(FILE *out)
{
	fprintf(
	    out,
	    "usage: calltrace record [OPTIONS] PROGRAM [ARGS...]\n\n"
	    "Runs PROGRAM and records every function call of it, its threads and its\n"
	    "child processes into one trace file.  Programs built with\n"
	    "-finstrument-functions are recorded by the runtime library (preloaded);\n"
	    "others with no recompiling: dynamically linked ones by the in-process\n"
	    "engine (function entries patched inside the process), static ones by the\n"
	    "ptrace engine.  Each process started from a dynamically linked one is\n"
	    "recorded once, by the engine that fits its own program (a shell, env or\n"
	    "make in between changes nothing).  The exit status is the program's own\n"
	    "(128 + signal if a signal killed it).\n\n"
	    "options:\n"
	    "  -o, --output FILE      trace file (default: $CALLTRACE_OUTPUT, else " DEFAULT_TRACE
	    ")\n"
	    "      --replace          replace FILE when no recording writes it, instead of\n"
	    "                         keeping it under a numbered name\n" RECORD_OPTIONS_HELP
	    "  -h, --help             this help\n\n"
	    "When FILE exists and another recording still writes it, the trace goes to\n"
	    "the first free numbered name (app.trace: app.2.trace, app.3.trace, ...);\n"
	    "any other file of yours named FILE is renamed so and kept (or, with\n"
	    "--replace, replaced).  record says which.  A symbolic link, a FIFO or\n"
	    "another user's file is refused: a trace is never written through a link.\n"
	    "The trace's mode is 0666 less the umask.\n\n"
	    "The ptrace engine runs the program and itself on one CPU: a ptrace stop\n"
	    "costs 5-10x more across CPUs.  CALLTRACE_NO_PIN=1 turns that off.\n");
}

/* The trace's name when -o is not given: CALLTRACE_OUTPUT, as the runtime
 * takes it, unless it asks for what `record` does not write. */
static const char *default_output(void)
{
	const char *env = getenv("CALLTRACE_OUTPUT");
	if (!env || !*env)
		return DEFAULT_TRACE;
	const char *format = getenv("CALLTRACE_FORMAT");
	size_t n = strlen(env);
	const char *why = NULL;
	if ((format && strcmp(format, "json") == 0) || (n > 5 && strcmp(env + n - 5, ".json") == 0))
		why = "record writes a binary trace ('calltrace json' turns it into JSON)";
	else if (strcmp(env, "/dev/null") == 0)
		why = "record always records (give -o to choose the trace)";
	if (!why)
		return env;
	cli_error("CALLTRACE_OUTPUT=%s is not used: %s; the trace goes to " DEFAULT_TRACE, env,
		  why);
	return DEFAULT_TRACE;
}

static int parse_options(struct record_options *o, int argc, char **argv)
{
	static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
						 {"replace", no_argument, 0, RECORD_OPT_REPLACE},
						 RECORD_LONGOPTS,
						 {"help", no_argument, 0, 'h'},
						 {0, 0, 0, 0}};
	int opt, output_given = 0;
	while ((opt = getopt_long(argc, argv, "+:o:h" RECORD_SHORTOPTS, longopts, NULL)) != -1) {
		if (opt == 'o') {
			o->output = optarg;
			output_given = 1;
			continue;
		}
		if (opt == RECORD_OPT_REPLACE) {
			o->replace = 1;
			continue;
		}
		if (opt == 'h') {
			record_usage(stdout);
			exit(0);
		}
		int rc = record_option(o, opt, optarg);
		if (rc > 0)
			cli_bad_option("record", argc, argv);
		if (rc != 0)
			return -1;
	}
	if (optind >= argc) {
		cli_error("record: no program given (see 'calltrace record --help')");
		return -1;
	}
	if (!output_given)
		o->output = default_output();
	return optind;
}

static void set_preload_environment(const char *runtime, const char *trace,
				    const struct record_options *o)
{
	char buf[PATH_MAX * 2 + 64];
	const char *old = getenv("LD_PRELOAD");
	if (old && *old)
		snprintf(buf, sizeof(buf), "%s:%s", runtime, old);
	else
		snprintf(buf, sizeof(buf), "%s", runtime);
	setenv("LD_PRELOAD", buf, 1);
	snprintf(buf, sizeof(buf), TRACE_SESSION_IDS "%s", 0u, (unsigned)getpid(), trace);
	setenv("CALLTRACE_SESSION", buf, 1);
	setenv("CALLTRACE_OUTPUT", trace, 1);
	if (o->max_depth)
		setenv("CALLTRACE_MAX_DEPTH", o->max_depth, 1);
	if (o->time_filter[0])
		setenv("CALLTRACE_TIME_FILTER", o->time_filter, 1);
	if (o->start_off)
		setenv("CALLTRACE_START", "off", 1);
	if (o->args)
		setenv("CALLTRACE_CAPTURE_ARGS", "1", 1);
	if (o->syscalls || o->sched) /* the runtime marks its own system calls */
		setenv("CALLTRACE_KERNEL", "1", 1);
	if (o->args_filter)
		setenv("CALLTRACE_ARGS_FILTER", o->args_filter, 1);
	/* -F/-N for the programs with hooks (record_filter.c); the patched
	 * ones take them as CALLTRACE_PATCH_ONLY/HIDE. */
	if (o->only)
		setenv("CALLTRACE_FILTER", o->only, 1);
	if (o->hide)
		setenv("CALLTRACE_NOTRACE", o->hide, 1);
	if ((o->only || o->hide) && o->engine.dyn.verbose)
		setenv("CALLTRACE_FILTER_VERBOSE", "1", 1); /* how many functions matched */
	if (!o->engine.dyn.follow_forks)
		setenv("CALLTRACE_NO_FOLLOW", "1", 1);
	if (o->programs)
		setenv("CALLTRACE_PROGRAMS", o->programs, 1);
	if (o->no_libcall)
		setenv("CALLTRACE_LIBCALL", "0", 1);
	if (o->nest_libcall)
		setenv("CALLTRACE_LIBCALL_NESTED", o->nest_libcall, 1);
}

/* The in-process engine's settings, for the preloaded runtime: every
 * program without hooks is patched, unless --engine runtime said no, with
 * its own libraries unless --no-own-libraries. */
static void set_patch_environment(const struct record_options *o)
{
	if (o->engine_choice == ENGINE_RUNTIME && !o->engine_picked)
		return;
	setenv("CALLTRACE_PATCH", "1", 1);
	setenv("CALLTRACE_PATCH_OWN", o->no_own_libraries ? "0" : "1", 1);
	const char *settings[][2] = {{"CALLTRACE_PATCH_MODULES", o->module},
				     {"CALLTRACE_PATCH_ONLY", o->only},
				     {"CALLTRACE_PATCH_HIDE", o->hide}};
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (settings[i][1])
			setenv(settings[i][0], settings[i][1], 1);
	if (o->engine.dyn.verbose)
		setenv("CALLTRACE_PATCH_VERBOSE", "1", 1);
}

/* The engine for `program`: the runtime for an instrumented one, else the
 * in-process engine when the program is dynamically linked (it preloads
 * the runtime), else ptrace. */
static enum record_engine pick_engine(const struct record_options *o, const char *program,
				      int instrumented)
{
	if (o->engine_choice != ENGINE_AUTO)
		return o->engine_choice;
	return cli_auto_engine(program, instrumented);
}

static const char *engine_description(enum record_engine e)
{
	switch (e) {
	case ENGINE_PATCH:
		return "in-process engine (no recompiling: function entries patched)";
	case ENGINE_PTRACE:
		return "ptrace engine (no recompiling: breakpoints)";
	default:
		return "runtime library (-finstrument-functions)";
	}
}

/* The child: waits until the parent is ready (the kernel's events open:
 * they start at this exec), then runs the program; on failure, tells the
 * parent why through the CLOEXEC pipe. */
static void child_exec(const char *path, char **argv, int go, int report)
{
	char byte;
	if (go >= 0 && read(go, &byte, 1) != 1)
		_exit(127);
	execv(path, argv);
	int e = errno;
	ssize_t unused = write(report, &e, sizeof(e));
	(void)unused;
	_exit(127);
}

/* Runs the program, with the kernel collector when --syscalls or --sched
 * asks for it; its wait status, or -1 if it could not be started. */
static int run_program(const struct record_options *o, struct trace_session *s, const char *path,
		       char **argv, pid_t *child, struct rusage *usage)
{
	int pipefd[2] = {-1, -1}, gofd[2] = {-1, -1};
	int kernel = o->syscalls || o->sched;
	pid_t pid = -1;
	if (pipe2(pipefd, O_CLOEXEC) == 0 && (!kernel || pipe2(gofd, O_CLOEXEC) == 0))
		pid = fork();
	if (pid < 0) { /* no file descriptor left (ulimit -n), no process */
		cli_error("%s: cannot start it: %s", argv[0], strerror(errno));
		for (int i = 0; i < 2; i++) {
			if (pipefd[i] >= 0)
				close(pipefd[i]);
			if (gofd[i] >= 0)
				close(gofd[i]);
		}
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		close(gofd[1]);
		child_exec(path, argv, gofd[0], pipefd[1]);
	}
	*child = pid;
	close(pipefd[1]);
	struct kernel_collector *kc = NULL;
	if (kernel) {
		close(gofd[0]);
		kc = record_kernel_start(s, o->syscalls, o->sched, o->engine.dyn.verbose, &pid, 1,
					 1);
		ssize_t unused = write(gofd[1], "g", 1);
		(void)unused;
		close(gofd[1]);
	}
	int exec_errno = 0;
	ssize_t got = read(pipefd[0], &exec_errno, sizeof(exec_errno));
	close(pipefd[0]);
	/* Like system(): Ctrl-C and Ctrl-\ are for the program. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	int status = 0;
	memset(usage, 0, sizeof(*usage));
	while (wait4(pid, &status, 0, usage) < 0 && errno == EINTR)
		;
	record_kernel_stop(kc, o->quiet);
	if (got == sizeof(exec_errno)) {
		cli_error("%s: cannot run: %s", argv[0], strerror(exec_errno));
		return -1;
	}
	return status;
}

static int exit_code_of(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static uint64_t timeval_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* The program's exit, with what it and the children it waited for used. */
static void write_exit(struct trace_session *s, pid_t pid, int code, const struct rusage *ru)
{
	s->image = 0; /* the reader gives it to the last image of pid */
	s->pid = (uint32_t)pid;
	struct trace_process_usage u = {
	    .user_us = timeval_us(ru->ru_utime),
	    .system_us = timeval_us(ru->ru_stime),
	    .max_rss_kib = (uint64_t)ru->ru_maxrss,
	    .voluntary_switches = (uint64_t)ru->ru_nvcsw,
	    .involuntary_switches = (uint64_t)ru->ru_nivcsw,
	};
	trace_write_exit_usage(s, code, &u);
}

/* The threads with events: one that execs goes on in the new image, with
 * its pid and tid (the reader keeps a thread per image). */
static size_t threads_recorded(const struct trace_reader *r)
{
	uint64_t *keys = malloc((2 * r->nthreads + 1) * sizeof(*keys)); /* and sorting room */
	size_t n = 0, distinct = 0;
	for (size_t i = 0; i < r->nthreads; i++) {
		const struct trace_thread *t = &r->threads[i];
		if (t->nwindows == 0 && t->nkernel_windows == 0)
			continue;
		if (keys)
			keys[n] = (uint64_t)t->pid << 32 | t->tid;
		n++;
	}
	if (!keys)
		return n; /* one per image */
	sort_addresses(keys, n, keys + n);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || keys[i] != keys[i - 1];
	free(keys);
	return distinct;
}

static void say_summary(const char *trace, int instrumented)
{
	char err[512];
	struct trace_reader *r = trace_reader_open(trace, err, sizeof(err));
	if (!r) {
		cli_error("%s", err);
		return;
	}
	size_t threads = threads_recorded(r), processes = trace_reader_processes(r);
	if (threads == 0)
		cli_error("no calls recorded%s; trace written to %s",
			  instrumented ? ""
				       : " (the program is not built with -finstrument-functions)",
			  trace);
	else
		cli_error("%zu process%s, %zu thread%s, %.1f KiB of events written to %s",
			  processes, processes == 1 ? "" : "es", threads, threads == 1 ? "" : "s",
			  (double)(r->event_bytes + r->kernel_bytes) / 1024, trace);
	trace_reader_close(r);
}

static char *join_command(char **argv, size_t *len)
{
	size_t n = 0;
	for (char **a = argv; *a; a++)
		n += strlen(*a) + 1;
	char *buf = malloc(n + 1), *p = buf;
	for (char **a = argv; *a; a++)
		p = stpcpy(p, *a) + 1;
	*len = n;
	return buf;
}

static int record_with_runtime(struct record_options *o, struct trace_session *s,
			       const char *runtime, const char *program, char **argv,
			       const char *trace)
{
	set_preload_environment(runtime, trace, o);
	set_patch_environment(o);
	struct record_cache cache = {0};
	if (getenv("CALLTRACE_PATCH"))
		record_cache_open(&cache, runtime, !o->no_cache);
	if (cache.dir && o->engine.dyn.verbose)
		cli_error("in-process engine: module caches in %s (%s)", cache.dir,
			  cache.lasting ? "kept for later recordings"
					: "this recording's, removed at its end");
	pid_t child = 0;
	struct rusage usage;
	int status = run_program(o, s, program, argv, &child, &usage);
	record_cache_close(&cache);
	if (status < 0)
		return -1;
	int code = exit_code_of(status);
	write_exit(s, child, code, &usage);
	return code;
}

/* The options that leave calls out, noted in the trace for `info`. */
static void note_filters(struct trace_session *s, const struct record_options *o)
{
	char text[sizeof(s->header->filters)] = "";
	if (o->time_filter_given)
		cli_append(text, sizeof(text), " -t %s", o->time_filter_given);
	if (o->max_depth)
		cli_append(text, sizeof(text), " -D %s", o->max_depth);
	if (o->only)
		cli_append(text, sizeof(text), " -F '%s'", o->only);
	if (o->hide)
		cli_append(text, sizeof(text), " -N '%s'", o->hide);
	if (o->programs)
		cli_append(text, sizeof(text), " --program '%s'", o->programs);
	if (!o->engine.dyn.follow_forks)
		cli_append(text, sizeof(text), " --no-follow");
	if (o->no_libcall)
		cli_append(text, sizeof(text), " --no-libcall");
	if (o->no_own_libraries)
		cli_append(text, sizeof(text), " --no-own-libraries");
	if (o->start_off)
		cli_append(text, sizeof(text), " --start-off");
	trace_session_note_filters(s, text[0] ? text + 1 : text);
}

int record_run(struct record_options *o, char **argv, int first)
{
	char program[PATH_MAX], trace[PATH_MAX];
	if (cli_find_program(argv[first], program, sizeof(program)) < 0) {
		int err = errno;
		cli_error("%s: cannot run: %s", argv[first], strerror(err));
		return err == EACCES ? 126 : 127;
	}
	int unrunnable = cli_check_program(argv[first], program);
	if (unrunnable)
		return unrunnable;
	int instrumented = elf_file_references(program, "__cyg_profile_func_enter") == 1;
	o->engine_picked = o->engine_choice == ENGINE_AUTO;
	o->engine_choice = pick_engine(o, program, instrumented);
	if ((o->engine_choice == ENGINE_PATCH && !ARCH_HAS_PATCH_ENGINE) ||
	    (o->engine_choice == ENGINE_PTRACE && !ARCH_HAS_PTRACE_ENGINE)) {
		cli_error("%s: the %s is x86-64 only for now (this calltrace is " ARCH_NAME
			  "): build it with -finstrument-functions",
			  argv[first], engine_description(o->engine_choice));
		return 2;
	}
	if (o->args && !ARCH_HAS_ARGS) {
		cli_error("--args is x86-64 only for now (this calltrace is " ARCH_NAME ")");
		return 2;
	}
	int use_dynamic = o->engine_choice == ENGINE_PTRACE;
	if (use_dynamic && !dynamic_record) {
		cli_error("the ptrace engine is not built into this calltrace");
		return 2;
	}
	if (use_dynamic && o->time_filter[0]) {
		cli_error("--time-filter is for the runtime and the in-process engine, not the "
			  "ptrace engine");
		return 2;
	}
	if (use_dynamic && o->programs) {
		cli_error("--program is for dynamically linked programs: the ptrace engine "
			  "records every process it follows");
		return 2;
	}
	char runtime[PATH_MAX];
	if (!use_dynamic && cli_find_runtime(runtime, sizeof(runtime)) < 0) {
		cli_error("cannot find the runtime library libcalltrace.so next to calltrace "
			  "(set CALLTRACE_RUNTIME)");
		return 127;
	}
	if (o->ring && (o->syscalls || o->sched)) {
		cli_error("--ring keeps the program's calls only: not with --syscalls or --sched");
		return 2;
	}
	if (o->ring && o->buffer_size) {
		cli_error("--buffer-size does not go with --ring: a ring's windows are a "
			  "sixteenth of its size");
		return 2;
	}
	record_kernel_clock(o->syscalls, o->sched, o->engine.dyn.verbose);
	size_t command_len;
	char *command = join_command(argv + first, &command_len);
	struct trace_session s;
	int (*create)(struct trace_session *, const char *, const char *, size_t, uint32_t) =
	    o->replace ? trace_session_create_replacing : trace_session_create;
	int rc = create(&s, o->output, command, command_len, (uint32_t)o->buffer_size);
	free(command);
	if (rc < 0) {
		cli_error("cannot write trace %s: %s", o->output, trace_session_refusal(&s, errno));
		return 2;
	}
	cli_close_in_background(s.created.replaced_fd); /* the program need not wait */
	if (o->ring && trace_session_make_ring(&s, o->ring) < 0) {
		cli_error("cannot make %s a ring: %s", s.path, trace_ring_refusal(errno));
		trace_session_close(&s);
		unlink(s.path); /* made just now, and nothing in it */
		return 2;
	}
	note_filters(&s, o);
	trace_session_reserve_ahead(&s); /* given back at the end (trace_session_trim) */
	cli_say_placement(&s, o->output);
	if (!realpath(s.path, trace))
		snprintf(trace, sizeof(trace), "%s", s.path);
	if (!o->quiet)
		cli_error("recording %s with the %s", argv[first],
			  engine_description(o->engine_choice));
	if (o->engine.dyn.verbose && o->engine_choice != ENGINE_PTRACE)
		cli_error("engine: %s, since %s", engine_description(o->engine_choice),
			  !o->engine_picked ? "--engine says so"
			  : o->engine_choice == ENGINE_RUNTIME
			      ? "the program is built with -finstrument-functions"
			      : "the program is dynamically linked and not instrumented");
	int code;
	if (use_dynamic) {
		o->engine.dyn.session = &s;
		o->engine.dyn.argv = argv + first;
		/* The engine starts the program itself: the events are opened
		 * on this thread, disabled, and inherited by what it starts;
		 * only a child's exec enables them (this process never execs). */
		pid_t self = (pid_t)gettid();
		struct kernel_collector *kc = record_kernel_start(
		    &s, o->syscalls, o->sched, o->engine.dyn.verbose, &self, 1, 1);
		code = dynamic_record(&o->engine.dyn);
		record_kernel_stop(kc, o->quiet);
	} else {
		code = record_with_runtime(o, &s, runtime, program, argv + first, trace);
	}
	if (code >= 0 && trace_session_last_out(&s))
		trace_session_trim(&s);
	/* Read while the session still holds the file: once it is let go,
	 * another recording may give its name to a new trace. */
	if (code >= 0 && use_dynamic)
		cli_say_crashes(trace);
	if (code >= 0 && !o->quiet)
		say_summary(trace, instrumented || o->engine_choice != ENGINE_RUNTIME);
	if (code < 0) /* the program never ran: nothing is recorded (still ours: held) */
		unlink(s.path);
	trace_session_close(&s);
	return code < 0 ? 127 : code;
}

int cmd_record(int argc, char **argv)
{
	struct record_options o;
	record_options_init(&o);
	int first = parse_options(&o, argc, argv);
	int code = first < 0 ? 2 : record_run(&o, argv, first);
	record_options_free(&o);
	return code;
}
