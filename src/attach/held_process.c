/*
 * held_process.c - a running process held under ptrace for the in-process
 * attach: every thread seized (new ones too, through PTRACE_O_TRACECLONE),
 * stopped together, resumed and let go with the signals that came
 * meanwhile.  Nothing here changes the process's code or registers.
 */
#include "inject.h"
#include "../ptrace/engine.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* How often a single step is looked for (20 us apart) before the thread
 * is interrupted: one that waits in a system call stops there then. */
#define STEP_POLLS 100
#define HELD_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_TRACEEXEC)

struct held_thread *held_find(struct held_process *p, pid_t tid)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (p->threads[i].tid == tid && !p->threads[i].gone)
			return &p->threads[i];
	return NULL;
}

static struct held_thread *add_thread(struct held_process *p, pid_t tid)
{
	struct held_thread *t = held_find(p, tid);
	if (t)
		return t;
	if (p->nthreads == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 16;
		struct held_thread *v = realloc(p->threads, cap * sizeof(*v));
		if (!v)
			return NULL;
		p->threads = v;
		p->cap = cap;
	}
	t = &p->threads[p->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static int is_job_control(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void note_stop(struct held_thread *t)
{
	t->stopped = 1;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &t->regs) < 0)
		memset(&t->regs, 0, sizeof(t->regs));
}

/* Whether the SIGTRAP thread `tid` stopped with is the end of a single
 * step (the kernel's own trap), not one sent to it. */
static int stepped(pid_t tid)
{
	siginfo_t info;
	return ptrace(PTRACE_GETSIGINFO, tid, 0, &info) == 0 && info.si_code > 0;
}

static void thread_gone(struct held_process *p, struct held_thread *t, int status)
{
	t->gone = 1;
	t->stopped = 0;
	if (t->tid != p->pid)
		return;
	p->exited = 1;
	p->exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	p->exit_status = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

void held_handle_status(struct held_process *p, pid_t tid, int status)
{
	struct held_thread *t = held_find(p, tid);
	if (!t && !(t = add_thread(p, tid)))
		return;
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thread_gone(p, t, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	int sig = WSTOPSIG(status), event = status >> 16;
	unsigned long msg = 0;
	note_stop(t);
	switch (event) {
	case 0: /* a signal on its way to the thread */
		if (sig == SIGTRAP && t->stepping && stepped(tid))
			sig = 0;
		t->stepping = 0;
		t->deliver = sig;
		return;
	case PTRACE_EVENT_STOP:
		t->group_stop = is_job_control(sig);
		t->interrupting = 0;
		return;
	case PTRACE_EVENT_CLONE:
		if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg) == 0)
			add_thread(p, (pid_t)msg); /* seized already; it reports a stop */
		return;
	case PTRACE_EVENT_EXIT:
		t->exiting = 1;
		return;
	case PTRACE_EVENT_EXEC:
		p->execed = 1;
		return;
	}
}

void held_hold_back(struct held_thread *t, int sig)
{
	for (int i = 0; i < t->nrequeue; i++)
		if (t->requeue[i] == sig)
			return; /* standard signals do not queue either */
	if (t->nrequeue < INJECT_REQUEUE_MAX)
		t->requeue[t->nrequeue++] = sig;
}

void held_interrupt(struct held_thread *t)
{
	if (t->interrupting || t->gone)
		return;
	if (ptrace(PTRACE_INTERRUPT, t->tid, 0, 0) == 0)
		t->interrupting = 1;
}

/* Every signal that can be blocked (the kernel leaves SIGKILL and SIGSTOP out). */
/* SIGTRAP stays deliverable: a thread the tool runs meets the runtime's
 * marks (int3), and the kernel kills a process whose trap is blocked. */
#define ALL_BLOCKED (~((1ull << (SIGKILL - 1)) | (1ull << (SIGSTOP - 1)) | (1ull << (SIGTRAP - 1))))

/* Whether `mask` is ours: the C library's own sigprocmask, if the thread
 * set it again from a copy, leaves its two internal signals out. */
static int blocks_all(uint64_t mask)
{
	return (mask | (3ull << 31)) == ALL_BLOCKED;
}

/* Blocks every signal of stopped thread `t`, its own mask kept (again
 * when a handler's return put its own back meanwhile). */
static void block_signals(struct held_thread *t)
{
	uint64_t all = ALL_BLOCKED, now;
	if (ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(now), &now) < 0 || blocks_all(now))
		return;
	if (ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(all), &all) < 0)
		return;
	t->own_mask = now;
	t->mask_held = 1;
}

void held_release_signals(struct held_process *p)
{
	p->hold_signals = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		struct held_thread *t = &p->threads[i];
		uint64_t now;
		if (!t->mask_held || t->gone || !t->stopped)
			continue;
		t->mask_held = 0;
		/* A handler that returned meanwhile put its own mask back. */
		if (ptrace(PTRACE_GETSIGMASK, t->tid, (void *)sizeof(now), &now) == 0 &&
		    blocks_all(now))
			ptrace(PTRACE_SETSIGMASK, t->tid, (void *)sizeof(t->own_mask),
			       &t->own_mask);
	}
}

/* Resumes stopped thread `t` with ptrace request `how` (PTRACE_CONT or
 * PTRACE_SINGLESTEP). */
static int resume_with(struct held_process *p, struct held_thread *t, int how)
{
	if (!t->stopped || t->gone)
		return 0;
	if (p->hold_signals) {
		if (t->deliver)
			held_hold_back(t, t->deliver);
		t->deliver = 0;
		block_signals(t);
	}
	int sig = t->deliver;
	long rc =
	    t->group_stop ? ptrace(PTRACE_LISTEN, t->tid, 0, 0) : ptrace(how, t->tid, 0, (long)sig);
	if (rc < 0 && errno != ESRCH)
		return -1;
	t->stopped = 0;
	t->deliver = 0;
	t->stepping = how == PTRACE_SINGLESTEP && !t->group_stop;
	return 0;
}

int held_resume(struct held_process *p, struct held_thread *t)
{
	return resume_with(p, t, PTRACE_CONT);
}

void held_resume_all(struct held_process *p)
{
	for (size_t i = 0; i < p->nthreads; i++)
		held_resume(p, &p->threads[i]);
}

static int all_stopped(const struct held_process *p)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (!p->threads[i].gone && !p->threads[i].stopped)
			return 0;
	return 1;
}

/* A thread still running this long after its interrupt is interrupted
 * again: its interrupt may have been overtaken by another stop (a timer's
 * signal, each millisecond) and make no stop of its own. */
#define STOP_AGAIN_NS 200000000ll

/* Interrupts the running threads (`only`: that one); `again`: whether
 * or not an interrupt is on its way already. */
static void interrupt_running(struct held_process *p, struct held_thread *only, int again)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		struct held_thread *t = &p->threads[i];
		if (t->gone || t->stopped || (only && t != only))
			continue;
		if (again)
			t->interrupting = 0;
		held_interrupt(t);
	}
}

static long long monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Waits until every thread (`only`: that one) is stopped or gone, their
 * statuses handled; 0, or -1 when waiting fails or the process ended. */
static int wait_stopped(struct held_process *p, struct held_thread *only)
{
	long long again = monotonic_ns() + STOP_AGAIN_NS;
	for (unsigned polls = 0; !p->exited; polls++) {
		if (only ? only->stopped || only->gone : all_stopped(p))
			return 0;
		/* A thread that appeared meanwhile stops by itself (auto-attach). */
		int status;
		pid_t got = waitpid(only ? only->tid : -1, &status, __WALL | WNOHANG);
		if (got > 0) {
			held_handle_status(p, got, status);
			continue;
		}
		if (got < 0 && errno != EINTR)
			return -1;
		if (monotonic_ns() >= again) {
			interrupt_running(p, only, 1);
			again = monotonic_ns() + STOP_AGAIN_NS;
		}
		nanosleep(&(struct timespec){0, polls < 100 ? 20000 : 500000}, NULL);
	}
	return -1;
}

int held_stop_all(struct held_process *p)
{
	interrupt_running(p, NULL, 0);
	return wait_stopped(p, NULL);
}

int held_run_alone(struct held_process *p, struct held_thread *t, unsigned us)
{
	if (held_resume(p, t) < 0)
		return -1;
	struct timespec slice = {0, (long)us * 1000};
	nanosleep(&slice, NULL);
	held_interrupt(t);
	if (wait_stopped(p, t) < 0)
		return -1;
	return t->gone ? -1 : 0;
}

int held_step_alone(struct held_process *p, struct held_thread *t)
{
	if (resume_with(p, t, PTRACE_SINGLESTEP) < 0)
		return -1;
	/* A step into a system call that waits does not end until it does. */
	for (int polls = 0; !t->stopped && !t->gone && !p->exited; polls++) {
		int status;
		pid_t got = waitpid(t->tid, &status, __WALL | (polls < STEP_POLLS ? WNOHANG : 0));
		if (got > 0)
			held_handle_status(p, got, status);
		else if (got < 0 && errno != EINTR)
			return -1;
		else if (polls < STEP_POLLS)
			nanosleep(&(struct timespec){0, 20000}, NULL);
		if (polls == STEP_POLLS - 1)
			held_interrupt(t);
	}
	return t->gone ? -1 : 0;
}

/* Seizes one thread; 1 seized, 0 gone or ours already, -1 refused. */
static int seize_one(struct held_process *p, pid_t tid)
{
	if (held_find(p, tid))
		return 0;
	if (ptrace(PTRACE_SEIZE, tid, 0, HELD_OPTIONS) < 0) {
		if (errno == ESRCH)
			return 0;
		engine_error("cannot attach to process %d: %s", (int)p->pid, strerror(errno));
		return -1;
	}
	struct held_thread *t = add_thread(p, tid);
	if (!t)
		return -1;
	held_interrupt(t);
	return 1;
}

int held_seize(struct held_process *p, pid_t pid)
{
	char path[64];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	for (int added = 1; added;) {
		DIR *d = opendir(path);
		if (!d) {
			engine_error("no process with PID %d", (int)pid);
			return -1;
		}
		struct dirent *de;
		added = 0;
		while ((de = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(de->d_name);
			int rc = tid > 0 ? seize_one(p, tid) : 0;
			if (rc < 0) {
				closedir(d);
				return -1;
			}
			added |= rc;
		}
		closedir(d);
	}
	if (held_stop_all(p) < 0) {
		engine_error("process %d exited", (int)pid);
		return -1;
	}
	return 0;
}

void held_detach_all(struct held_process *p)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		struct held_thread *t = &p->threads[i];
		if (t->gone)
			continue;
		ptrace(PTRACE_DETACH, t->tid, 0, (long)(t->stopped ? t->deliver : 0));
		for (int k = 0; k < t->nrequeue; k++)
			syscall(SYS_tgkill, (int)p->pid, (int)t->tid, t->requeue[k]);
		t->nrequeue = 0;
		t->gone = 1;
	}
}

void held_free(struct held_process *p)
{
	free(p->threads);
	p->threads = NULL;
	p->nthreads = p->cap = 0;
}
