/*
 * event_loop.c - waiting for the tracees' stops and dispatching them:
 * breakpoints and return traps, clone/fork/exec events, group-stops,
 * signals (delivered untouched) and deaths; and holding every thread
 * stopped (attach, detach).  A stop that arrives before the event that
 * announces its thread is kept here and handled once the thread is known.
 * The top of the engine's layers that run the tracees: it calls every
 * layer below and none calls it but attach, launch and detach.
 */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "engine.h"
#include "../analysis/progress.h"

volatile int engine_stop_requested;

/* A stop that arrived before the event announcing its thread. */
static int take_pending(struct engine *e, pid_t tid, int *status)
{
	for (int i = 0; i < e->npending; i++) {
		if (e->pending[i].tid != tid)
			continue;
		*status = e->pending[i].status;
		e->pending[i] = e->pending[--e->npending];
		return 1;
	}
	return 0;
}

static void replay_pending(struct engine *e, struct thread *t)
{
	int status;
	if (take_pending(e, t->tid, &status))
		event_handle(e, t, status);
}

/* A stop of a tid the engine does not know yet (a new thread or child
 * reports before its parent's event): kept until that event. */
static void keep_unknown_stop(struct engine *e, pid_t tid, int status)
{
	if (!WIFSTOPPED(status))
		return; /* the death of a thread already forgotten (exec) */
	if (e->npending < (int)(sizeof(e->pending) / sizeof(e->pending[0]))) {
		e->pending[e->npending].tid = tid;
		e->pending[e->npending].status = status;
		e->npending++;
		return;
	}
	ptrace(PTRACE_CONT, tid, 0, 0); /* cannot remember it: let it run */
}

static int exit_code(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void thread_gone(struct engine *e, struct thread *t, int status)
{
	struct process *p = t->proc;
	int leader = t->tid == p->pid;
	if (leader)
		process_exit(e, p, exit_code(status));
	if (t->tid == e->main_pid) {
		e->main_status = exit_code(status);
		e->main_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
		e->have_main_status = 1;
	}
	thread_end_stream(t, 1);
	thread_free(e, t);
	if (p->nthreads == 0)
		process_free(e, p);
}

/* %rip and %rsp of a stopped thread.  PTRACE_GET_SYSCALL_INFO reads just
 * those (at any stop) for half the cost of PTRACE_GETREGS; 1 when only they
 * were read, 0 when all registers were, -1 on error. */
static int read_rip_rsp(struct thread *t, struct user_regs_struct *r)
{
	struct __ptrace_syscall_info si;
	long n = ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, sizeof(si), &si);
	if (n >= (long)(offsetof(struct __ptrace_syscall_info, stack_pointer) + 8)) {
		r->rip = si.instruction_pointer;
		r->rsp = si.stack_pointer;
		return 1;
	}
	return ptrace(PTRACE_GETREGS, t->tid, 0, r) < 0 ? -1 : 0;
}

/* The rest an entry needs: %r11 for a jump entry, all registers for an
 * int3 entry (its plan works on them) or one whose arguments are read;
 * 0 or -1. */
static int read_entry_regs(struct thread *t, const struct breakpoint *bp,
			   struct user_regs_struct *r)
{
	if (bp->plan.kind != PLAN_JUMP || bp->values)
		return ptrace(PTRACE_GETREGS, t->tid, 0, r) < 0 ? -1 : 0;
	errno = 0;
	r->r11 = (unsigned long long)ptrace(PTRACE_PEEKUSER, t->tid,
					    offsetof(struct user_regs_struct, r11), 0);
	return errno ? -1 : 0;
}

static void on_sigtrap(struct engine *e, struct thread *t)
{
	struct user_regs_struct r;
	struct process *p = t->proc;
	int partial = read_rip_rsp(t, &r);
	if (partial < 0)
		return;
	uint64_t at = r.rip - 1;
	struct breakpoint *bp;
	if (is_trap(p, at)) {
		/* A return value is read from the registers. */
		if (partial && e->opts->capture_args && ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0)
			return;
		return_hit(e, t, &r);
		thread_resume(e, t, 0);
	} else if ((bp = bp_find(&p->bps, at)) != NULL) {
		if (partial && read_entry_regs(t, bp, &r) < 0)
			return;
		if (bp->kind == BP_FUNCTION)
			entry_hit(e, t, bp, &r);
		else
			special_hit(e, t, bp, &r);
		thread_resume(e, t, 0);
	} else {
		crash_note_signal(t, SIGTRAP); /* the program's own */
		thread_resume(e, t, SIGTRAP);
	}
}

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

static void on_event(struct engine *e, struct thread *t, int event, int sig)
{
	unsigned long msg = 0;
	switch (event) {
	case PTRACE_EVENT_CLONE:
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK: {
		ptrace(PTRACE_GETEVENTMSG, t->tid, 0, &msg);
		struct thread *child =
		    event == PTRACE_EVENT_CLONE
			? follow_clone(e, t, (pid_t)msg)
			: follow_fork(e, t, (pid_t)msg, event == PTRACE_EVENT_VFORK);
		if (child)
			replay_pending(e, child);
		break;
	}
	case PTRACE_EVENT_EXEC: {
		pid_t tid = t->tid;
		follow_exec(e, t);
		t = thread_find(e, tid);
		if (!t)
			return; /* let go (a vfork child not followed) */
		break;
	}
	case PTRACE_EVENT_EXIT:
		crash_note_exit(t);
		thread_end_stream(t, 1); /* still alive: its name can be read */
		break;
	case PTRACE_EVENT_STOP:
		t->in_group_stop = is_stop_signal(sig);
		if (t->proc->detach_on_stop) {
			follow_let_go(e, t);
			return;
		}
		break;
	default:
		break;
	}
	thread_resume(e, t, 0);
}

void event_handle(struct engine *e, struct thread *t, int status)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		thread_gone(e, t, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	int sig = WSTOPSIG(status), event = status >> 16;
	e->stops++;
	t->stopped = 1;
	if (event != PTRACE_EVENT_STOP)
		t->in_group_stop = 0;
	if (event)
		on_event(e, t, event, sig);
	else if (sig == SIGTRAP)
		on_sigtrap(e, t);
	else {
		crash_note_signal(t, sig);
		thread_resume(e, t, sig);
	}
}

int event_loop(struct engine *e)
{
	struct progress line; /* the calls seen so far, on a terminal */
	uint32_t stops = 0;
	progress_begin(&line, e->attach_mode ? "tracing" : "recording");
	while (e->procs) {
		if ((++stops & 4095) == 0)
			progress_update(&line, e->calls, 0, "calls");
		if (e->attach_mode && engine_stop_requested) {
			progress_end(&line);
			return 1;
		}
		int status;
		pid_t tid = waitpid(-1, &status, __WALL);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ECHILD)
				break;
			progress_end(&line);
			engine_error("waitpid: %m");
			return -1;
		}
		struct thread *t = thread_find(e, tid);
		if (t)
			event_handle(e, t, status);
		else
			keep_unknown_stop(e, tid, status);
		if (trace_guard_lost(e)) { /* said: the caller lets the processes go */
			progress_end(&line);
			return 1;
		}
	}
	progress_end(&line);
	return 0;
}

static int all_stopped(const struct engine *e)
{
	for (const struct thread *t = e->threads; t; t = t->next)
		if (!t->stopped)
			return 0;
	return 1;
}

void engine_collect_stops(struct engine *e)
{
	e->holding = 1;
	while (e->procs && !all_stopped(e)) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL);
		if (tid < 0 && errno == EINTR)
			continue;
		if (tid < 0)
			break;
		struct thread *t = thread_find(e, tid);
		if (t)
			event_handle(e, t, status);
		else
			keep_unknown_stop(e, tid, status);
	}
}

void engine_stop_all(struct engine *e)
{
	e->holding = 1;
	for (struct thread *t = e->threads; t; t = t->next)
		if (!t->stopped)
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	engine_collect_stops(e);
}
