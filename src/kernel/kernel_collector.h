/*
 * kernel_collector.h - the session's kernel collector: the system calls and
 * off-CPU intervals of the traced processes, from the kernel's tracepoints,
 * written into the trace as CHUNK_KERNEL chunks while the program runs.
 *
 * It runs in a thread of the recording tool: kernel_collector_start opens
 * the events (filtered in the kernel to the given threads and what they
 * start) and starts it; kernel_collector_stop reads the rest, writes it and
 * says what was lost.
 */
#ifndef CALLTRACE_KERNEL_COLLECTOR_H
#define CALLTRACE_KERNEL_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct trace_session;
struct kernel_collector;

struct kernel_collect_options {
	int syscalls; /* --syscalls */
	int sched;    /* --sched */
	int verbose;
	/* The events start at the process's next exec (record: the child
	 * execs the program once they are open); else at once (attach). */
	int from_exec;
	/* Where the system calls are recorded but their arguments cannot be
	 * copied (no BPF): one line saying why, into note (may be NULL). */
	char *note;
	size_t note_len;
};

/* Before the trace is created: when the trace's clock would be the TSC and
 * the kernel cannot convert its times to it, makes it CLOCK_MONOTONIC
 * (CALLTRACE_CLOCK, for this process and the program), on which both sides
 * stamp exactly alike.  1 when it did. */
int kernel_collector_pick_clock(void);

/* Opens the events for the threads `tids` (and every thread and process
 * they start) and starts collecting into `s`.  NULL, with one line in
 * `err` saying what is missing, when the kernel refuses; when it refuses
 * the system calls only, the off-CPU intervals are collected and `err`
 * says why the system calls are not (it is "" when all went well). */
struct kernel_collector *kernel_collector_start(struct trace_session *s,
						const struct kernel_collect_options *o,
						const pid_t *tids, int ntids, char *err,
						size_t errlen);
/* Stops, writes what is left, frees.  Into `summary` (may be NULL): one
 * line of what was recorded and lost. */
void kernel_collector_stop(struct kernel_collector *kc, char *summary, size_t len);

#endif
