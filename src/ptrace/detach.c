/*
 * detach.c - leaving an attached process as it was.
 *
 * Every thread is stopped, and every stop it has pending is taken: an
 * interrupt may overtake the SIGTRAP of a breakpoint or of the return trap
 * that the thread has just hit, and that SIGTRAP, still queued, would kill
 * the process once it is no longer traced.  So a thread with a SIGTRAP
 * queued is let take it (it stops at its delivery before running an
 * instruction) and the stop is handled like any other: the entry is
 * recorded, the return closes its frames.  Then every breakpoint is taken
 * out, every return address still swapped is written back, threads inside
 * a slot are moved to the same place in the original code, each thread
 * gets its CPU affinity back, and the threads are let go with only their
 * own signals pending (one held back at an event stop is sent again).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "engine.h"

#define SIGTRAP_TRIES 8 /* and two more a thread */

/* A signal mask line ("SigPnd:\t...") of /proc/PID/task/TID/status. */
static unsigned long long mask_of(const char *line, const char *name)
{
	size_t len = strlen(name);
	return strncmp(line, name, len) == 0 ? strtoull(line + len, NULL, 16) : 0;
}

/* Is a SIGTRAP queued for this thread alone (as an int3 queues it), and
 * not blocked (the thread takes it as soon as it runs)? */
static int sigtrap_queued(pid_t pid, pid_t tid)
{
	char path[64], line[128];
	unsigned long long pending = 0, blocked = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		pending |= mask_of(line, "SigPnd:");
		blocked |= mask_of(line, "SigBlk:");
	}
	fclose(f);
	return (int)(((pending & ~blocked) >> (SIGTRAP - 1)) & 1);
}

/* Resumes one thread until its next stop, and handles that. */
static void next_stop_of(struct engine *e, pid_t tid)
{
	int status;
	struct thread *t = thread_find(e, tid);
	if (!t)
		return;
	t->stopped = 0;
	if (ptrace(PTRACE_CONT, tid, 0, 0) < 0)
		return;
	while (waitpid(tid, &status, __WALL) < 0)
		if (errno != EINTR)
			return;
	event_handle(e, t, status);
}

/* A stopped thread with a SIGTRAP queued; 0 when there is none. */
static pid_t thread_with_sigtrap(const struct engine *e)
{
	for (const struct thread *t = e->threads; t; t = t->next)
		if (t->stopped && !t->in_group_stop && sigtrap_queued(t->proc->pid, t->tid))
			return t->tid;
	return 0;
}

/* Lets every stopped thread take the SIGTRAP queued for it; 0, or -1
 * when one could not be taken. */
static int take_queued_sigtraps(struct engine *e)
{
	int tries = 0, max_tries = SIGTRAP_TRIES;
	for (const struct thread *t = e->threads; t; t = t->next)
		max_tries += 2;
	pid_t tid;
	while ((tid = thread_with_sigtrap(e)) != 0) {
		if (++tries > max_tries) {
			engine_error("thread %d keeps a SIGTRAP queued: it may die of it",
				     (int)tid);
			return -1;
		}
		next_stop_of(e, tid);
	}
	return 0;
}

/* Is the thread stopped at the delivery of `sig` (where PTRACE_DETACH
 * delivers it), rather than at an event stop (where it would be lost)? */
static int at_delivery_of(const struct thread *t, int sig)
{
	siginfo_t si;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, 0, &si) < 0)
		return 0;
	return si.si_signo == sig && si.si_code <= 0xff; /* not SIGTRAP | event << 8 */
}

static void let_go(struct engine *e, struct thread *t)
{
	int sig = t->pending_sig;
	int requeue = sig && !at_delivery_of(t, sig);
	return_restore(e, t);
	affinity_restore_thread(t);
	thread_end_stream(t, 0);
	ptrace(PTRACE_DETACH, t->tid, 0, requeue ? 0 : (long)sig);
	if (requeue) /* the program's own signal, held back while we drained ours */
		syscall(SYS_tgkill, (int)t->proc->pid, (int)t->tid, sig);
}

int engine_detach_all(struct engine *e)
{
	engine_stop_all(e);
	int rc = take_queued_sigtraps(e);
	engine_stop_all(e); /* a thread that a stop created */
	for (struct process *p = e->procs; p; p = p->next)
		if (bp_remove_all(p) < 0)
			rc = -1;
	for (struct thread *t = e->threads; t; t = t->next)
		let_go(e, t);
	return rc;
}
