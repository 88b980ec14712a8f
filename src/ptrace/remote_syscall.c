/*
 * remote_syscall.c - making a stopped tracee run one system call for the
 * engine (mmap of the trap page and of out-of-line slots).
 *
 * The thread's registers are saved, pointed at a "syscall; int3" sequence
 * with the call's arguments, resumed until the int3, and restored.
 * orig_rax = -1 keeps the kernel from restarting a system call the thread
 * was interrupted in; the saved registers restore that state afterwards.
 * A signal that arrives meanwhile is kept for the thread's next resume.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "engine.h"

static int wait_for_trap(struct thread *t, uint64_t expect_rip, struct user_regs_struct *out)
{
	for (;;) {
		int status;
		pid_t got = waitpid(t->tid, &status, __WALL);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || WIFEXITED(status) || WIFSIGNALED(status)) {
			t->exited = 1;
			return -1;
		}
		int sig = WSTOPSIG(status);
		if (sig == SIGTRAP && (status >> 16) == 0) {
			if (ptrace(PTRACE_GETREGS, t->tid, 0, out) < 0)
				return -1;
			if (out->rip == expect_rip)
				return 0;
		} else if ((status >> 16) == 0) {
			t->pending_sig = sig; /* deliver later */
		}
		if (ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
			return -1;
	}
}

long remote_syscall(struct engine *e, struct thread *t, uint64_t insn, long nr, long a1, long a2,
		    long a3, long a4, long a5, long a6)
{
	(void)e;
	struct user_regs_struct saved, r;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &saved) < 0)
		return -ESRCH;
	r = saved;
	r.rax = (unsigned long long)nr;
	r.orig_rax = (unsigned long long)-1;
	r.rdi = (unsigned long long)a1;
	r.rsi = (unsigned long long)a2;
	r.rdx = (unsigned long long)a3;
	r.r10 = (unsigned long long)a4;
	r.r8 = (unsigned long long)a5;
	r.r9 = (unsigned long long)a6;
	r.rip = insn;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &r) < 0 || ptrace(PTRACE_CONT, t->tid, 0, 0) < 0)
		return -ESRCH;
	if (wait_for_trap(t, insn + 3, &r) < 0)
		return -ESRCH;
	long result = (long)r.rax;
	if (ptrace(PTRACE_SETREGS, t->tid, 0, &saved) < 0)
		return -ESRCH;
	return result;
}
