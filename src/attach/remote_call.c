/*
 * remote_call.c - making a stopped thread of the held process call a
 * function (dlopen, the runtime's entry points) and come back.
 *
 * Per the SysV ABI: the arguments in rdi, rsi, rdx, rcx, r8, r9, al = 0,
 * the direction flag clear, and a stack 16-byte aligned at the call, below
 * the thread's red zone (128 bytes) and below any data put there for the
 * call.  The return address is 0: the return faults there with SIGSEGV at
 * rip 0, which ends the call; the signal is never delivered.  orig_rax = -1
 * keeps the kernel from restarting the system call the thread was stopped
 * in; the saved registers (and the whole extended FPU state, which the
 * callee may use) are put back after, which restarts it as it would have.
 * Signals that come meanwhile are held back and sent again at the detach.
 */
#include "inject.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

#define RED_ZONE 128
#define XSTATE_MAX (16u << 10)
#define EFLAGS_DF 0x400

void remote_stack_begin(struct remote_stack *s, const struct held_thread *t)
{
	s->sp = (t->regs.rsp - RED_ZONE - 256) & ~15ull;
}

uint64_t remote_stack_push(struct held_process *p, struct remote_stack *s, const void *data,
			   size_t len)
{
	uint64_t at = (s->sp - len) & ~15ull;
	struct iovec local = {(void *)data, len};
	struct iovec remote = {(void *)(uintptr_t)at, len};
	if (process_vm_writev(p->pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return 0;
	s->sp = at;
	return at;
}

struct saved_state {
	struct user_regs_struct regs;
	uint8_t xstate[XSTATE_MAX];
	struct iovec xstate_iov;
	int have_xstate;
	struct user_fpregs_struct fpregs;
	int have_fpregs;
};

static void save_state(const struct held_thread *t, struct saved_state *st)
{
	st->regs = t->regs;
	st->xstate_iov = (struct iovec){st->xstate, sizeof(st->xstate)};
	st->have_xstate =
	    ptrace(PTRACE_GETREGSET, t->tid, (void *)NT_X86_XSTATE, &st->xstate_iov) == 0;
	st->have_fpregs = !st->have_xstate && ptrace(PTRACE_GETFPREGS, t->tid, 0, &st->fpregs) == 0;
}

static int restore_state(struct held_thread *t, struct saved_state *st)
{
	int rc = ptrace(PTRACE_SETREGS, t->tid, 0, &st->regs);
	if (st->have_xstate)
		ptrace(PTRACE_SETREGSET, t->tid, (void *)NT_X86_XSTATE, &st->xstate_iov);
	else if (st->have_fpregs)
		ptrace(PTRACE_SETFPREGS, t->tid, 0, &st->fpregs);
	t->regs = st->regs;
	return rc;
}

enum call_end { CALL_RUNNING, CALL_RETURNED, CALL_FAULTED, CALL_DIED };

/* One wait status of the calling thread, seen by the call. */
static enum call_end call_status(struct held_process *p, struct held_thread *t, int status,
				 int deliver)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		held_handle_status(p, t->tid, status);
		return CALL_DIED;
	}
	int sig = WSTOPSIG(status), event = status >> 16;
	struct user_regs_struct r;
	if (event == 0 && sig == SIGSEGV && ptrace(PTRACE_GETREGS, t->tid, 0, &r) == 0) {
		t->regs = r;
		return r.rip == 0 ? CALL_RETURNED : CALL_FAULTED;
	}
	if (event == PTRACE_EVENT_STOP)
		t->interrupting = 0;
	if (event == 0 && sig != deliver)
		held_hold_back(t, sig);
	else if (event == PTRACE_EVENT_CLONE || event == PTRACE_EVENT_EXIT)
		held_handle_status(p, t->tid, status);
	if (event == PTRACE_EVENT_EXIT)
		return CALL_DIED;
	ptrace(PTRACE_CONT, t->tid, 0, 0);
	return CALL_RUNNING;
}

static uint64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* The microseconds thread `t` waited for a CPU while it could run (its
 * schedstat); 0 when unknown. */
static uint64_t waited_for_cpu_us(const struct held_process *p, const struct held_thread *t)
{
	uint64_t ran, waited;
	return held_schedstat(p->pid, t->tid, &ran, &waited) == 0 ? waited / 1000u : 0;
}

/* Runs the thread until the call ends or the time is up.  The tracer's
 * SIGCHLD (blocked by the caller, or not) says when a status is there.  A
 * call gets `timeout_ms` of the time it ran or was blocked: the time it
 * waited for a CPU (a busy machine, a process of low priority) does not
 * count, up to eight times the timeout in all. */
static enum call_end run_call(struct held_process *p, struct held_thread *t, int deliver,
			      unsigned timeout_ms)
{
	uint64_t start = now_us(), waited_before = waited_for_cpu_us(p, t);
	uint64_t end = start + (uint64_t)timeout_ms * 1000u,
		 last = start + 8ull * timeout_ms * 1000u;
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	for (;;) {
		int status;
		pid_t got = waitpid(t->tid, &status, __WALL | WNOHANG);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return CALL_DIED;
		if (got > 0) {
			enum call_end e = call_status(p, t, status, deliver);
			if (e != CALL_RUNNING)
				return e;
			continue;
		}
		uint64_t now = now_us();
		if (now >= end) {
			uint64_t waited_now = waited_for_cpu_us(p, t);
			uint64_t waited =
			    waited_now > waited_before ? waited_now - waited_before : 0;
			end = start + (uint64_t)timeout_ms * 1000u + waited;
			if (now >= end || now >= last)
				return CALL_RUNNING;
		}
		uint64_t nap_us = end - now < 2000 ? end - now : 2000;
		struct timespec nap = {0, (long)nap_us * 1000};
		sigtimedwait(&chld, NULL, &nap);
	}
}

/* The call took too long: the thread is stopped where it is and put back
 * as it was (what the call did so far stays done). */
static void abandon_call(struct held_process *p, struct held_thread *t)
{
	held_interrupt(t);
	for (;;) {
		int status;
		pid_t got = waitpid(t->tid, &status, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
			if (got > 0)
				held_handle_status(p, t->tid, status);
			return;
		}
		if ((status >> 16) == PTRACE_EVENT_STOP)
			t->interrupting = 0;
		else if ((status >> 16) == 0 && WSTOPSIG(status) != SIGSEGV)
			held_hold_back(t, WSTOPSIG(status));
		return;
	}
}

int remote_call(struct held_process *p, struct held_thread *t, const struct remote_stack *s,
		uint64_t function, const uint64_t *args, int nargs, uint64_t *result,
		unsigned timeout_ms, char *why, size_t why_len)
{
	static struct saved_state st;
	save_state(t, &st);
	struct user_regs_struct r = st.regs;
	uint64_t zero = 0;
	struct remote_stack frame = *s;
	frame.sp -= 8; /* 16-aligned + 8 at the callee's entry: as after a call */
	struct iovec local = {&zero, 8}, remote = {(void *)(uintptr_t)frame.sp, 8};
	if (process_vm_writev(p->pid, &local, 1, &remote, 1, 0) != 8) {
		snprintf(why, why_len, "cannot write the stack of thread %d", (int)t->tid);
		return -1;
	}
	unsigned long long *regs[6] = {&r.rdi, &r.rsi, &r.rdx, &r.rcx, &r.r8, &r.r9};
	for (int i = 0; i < nargs && i < 6; i++)
		*regs[i] = args[i];
	r.rsp = frame.sp;
	r.rip = function;
	r.rax = 0;
	r.orig_rax = (unsigned long long)-1;
	r.eflags &= ~(unsigned long long)EFLAGS_DF;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) < 0 || ptrace(PTRACE_CONT, t->tid, 0, 0) < 0) {
		snprintf(why, why_len, "cannot run thread %d: %s", (int)t->tid, strerror(errno));
		return -1;
	}
	t->stopped = 0;
	enum call_end e = run_call(p, t, t->deliver, timeout_ms);
	if (e == CALL_DIED) {
		snprintf(why, why_len, "the process died during the call");
		return -1;
	}
	if (e == CALL_RUNNING) {
		abandon_call(p, t);
		snprintf(why, why_len, "the call did not return within %u ms", timeout_ms);
	} else if (e == CALL_FAULTED) {
		snprintf(why, why_len, "the call faulted at %#llx", t->regs.rip);
	}
	*result = t->regs.rax;
	t->stopped = !t->gone;
	if (t->stopped)
		restore_state(t, &st);
	return e == CALL_RETURNED ? 0 : -1;
}
