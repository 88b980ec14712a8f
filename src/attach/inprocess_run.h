/*
 * inprocess_run.h - what attaching with the in-process engine
 * (inprocess_attach.c) and detaching from it (inprocess_detach.c) share:
 * the run's state and the calls into the process.
 */
#ifndef CALLTRACE_INPROCESS_RUN_H
#define CALLTRACE_INPROCESS_RUN_H

#include <limits.h>
#include <stdint.h>
#include "../ptrace/dynamic.h"
#include "../ptrace/engine.h"
#include "inject.h"
#include "../runtime/attach_abi.h"

#define CALL_TIMEOUT_MS 10000
#define SAFE_SPOT_MS 1500
#define OTHERS_SAFE_SPOT_MS 200

struct agent {
	uint64_t start, stop, finish, info; /* in the process */
};

struct attach_run {
	const struct inprocess_options *o;
	struct trace_session *session; /* the tool's handle on the trace */
	struct held_process p;
	struct agent agent;
	struct attach_info info;
	char runtime[PATH_MAX];
	char why[512];
	char session_fd[16]; /* the trace's number in the process, "" if it opens it */
	char tool_pid[16];   /* ours, which the runtime watches */
};

/* A line on stderr with --verbose. */
void inprocess_say_verbose(int verbose, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The runtime's attach_info, read from the process; 0, or -1. */
int inprocess_read_info(struct attach_run *a);
/* A call into the process by thread `t`, its arguments strings or
 * integers; -1 after saying why. */
int inprocess_call(struct attach_run *a, struct held_thread *t, uint64_t fn, const char *what,
		   const uint64_t *args, int nargs, const struct remote_stack *s, uint64_t *result);
/* inprocess_detach.c: stops recording and puts every entry back; 0, or
 * -1 (the process may keep some entries patched: said). */
int inprocess_stop_agent(struct attach_run *a);
/* Makes a fork child that still records, with the runtime where its
 * parent has it, stop and close its trace as the parent did; 1 when it
 * did, 0 when it is gone or runs another program, -1 on failure. */
int inprocess_stop_child(const struct attach_run *parent, pid_t pid);
/* Every fork child still recording stops: said how many with --verbose. */
int inprocess_stop_children(struct attach_run *a);

#endif
