/*
 * dynamic.h - tracing without recompiling: the ptrace engine's entry points.
 *
 * The engine writes the same trace format through the same encoder
 * (trace_writer.h) as the runtime library, so every view reads its traces
 * unchanged.
 */
#ifndef CALLTRACE_DYNAMIC_H
#define CALLTRACE_DYNAMIC_H

#include <regex.h>
#include <stdint.h>
#include <sys/types.h>
#include "../format/trace_writer.h"

struct dynamic_options {
	struct trace_session *session; /* created by the caller; image ids etc. are the engine's */
	char *const *argv;	       /* record: the program and its arguments */
	pid_t pid;		       /* attach: the process */
	uint64_t duration_ns;	       /* attach: 0 = until Ctrl-C or the process ends */
	regex_t *module_filter; /* --module: libraries to instrument besides the executable */
	regex_t *only;		/* -F at record time: functions to instrument */
	regex_t *hide;		/* -N at record time: functions not to instrument */
	const char *only_text, *hide_text; /* -F, -N as given (name_match.h) */
	int follow_forks;		   /* -f (default on) */
	int capture_args;		   /* --args: record arguments and return values */
	regex_t *args_only;		   /* --args=REGEX: of the functions matching only */
	uint32_t max_depth;		   /* -D: calls deeper are not written; 0 = all */
	int verbose;
};

/* Runs argv[0] under the engine.  Returns the program's exit status (or
 * 128 + signal), or -1 after printing an error. */
int dynamic_record(const struct dynamic_options *o);

/* What became of an attach. */
enum attach_result {
	ATTACH_DETACHED = 0,	  /* traced, then left running as it was */
	ATTACH_TARGET_EXITED = 1, /* traced until it exited by itself (said on stderr) */
	ATTACH_FAILED = -1,	  /* an error, or the process was killed while traced (said) */
	ATTACH_REFUSED = -2,	  /* nothing traced: no such process, not allowed... (said) */
};

/* Can process `pid` be attached to at all (it exists, is not ours, not a
 * kernel thread, not traced already)?  0, or -1 after printing why not. */
int dynamic_attach_check(pid_t pid);

/* Traces a running process until the duration ends, Ctrl-C, or it exits;
 * detaches leaving it as it was.  An enum attach_result. */
int dynamic_attach(const struct dynamic_options *o);

/* `calltrace attach` with the in-process engine: the runtime library is
 * loaded into the process and patches function entries there. */
struct inprocess_options {
	pid_t pid;
	uint64_t duration_ns;	 /* 0 = until Ctrl-C or the process ends */
	const char *runtime;	 /* libcalltrace.so */
	const char *module;	 /* --module REGEX as given, or NULL */
	int no_own_libraries;	 /* --no-own-libraries: the program alone, and --module's */
	const char *only, *hide; /* -F, -N as given, or NULL */
	int follow_forks;	 /* children forked meanwhile record too */
	int capture_args;	 /* --args */
	const char *args_filter; /* --args=REGEX as given, or NULL */
	int kernel;		 /* --syscalls or --sched: mark the runtime's own work */
	int verbose;
};

/* Whether process `pid` can take the in-process engine with the runtime at
 * `runtime` (NULL: none found): 0, or -1; `why` says why (either way). */
int inprocess_attach_possible(pid_t pid, const char *runtime, char *why, size_t len);

/* Records into session `s` (created by the caller) until the duration
 * ends, SIGINT/SIGTERM, or the process exits; leaves it as it was.  An
 * enum attach_result. */
int dynamic_attach_inprocess(const struct inprocess_options *o, struct trace_session *s);

/* A handler for the signals that end an attach (SIGINT, SIGTERM): the
 * attach under way, or the next one as soon as it has started, detaches. */
void dynamic_attach_stop(int sig);

/* After the attach's tracer died: stops the recording the runtime in
 * process o->pid (and its fork children) may still make, and puts every
 * entry back, as a detach does; 0 (also when nothing recorded), or -1. */
int dynamic_attach_inprocess_rescue(const struct inprocess_options *o);

/* The command line of process `pid`, its arguments NUL-separated, as the
 * trace header keeps it; its length (0 when unreadable). */
size_t dynamic_read_cmdline(pid_t pid, char *buf, size_t len);

#endif
