/*
 * crash_note.c - the crash records the tool writes, in the runtime's format
 * (src/runtime/session/crash.c), for processes with no crash handler of the
 * runtime's: those of the ptrace engine, and those `attach` came into with
 * the in-process engine.  A fatal signal a thread is about to get is noted
 * at its delivery stop (its siginfo, where the thread was, whether the
 * fault is its stack overflowing); the record is written when the thread's
 * exit stop says that signal ended it.  A signal the program handles, and
 * lives through, leaves no record.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "engine.h"
#include "../utils/stack_overflow.h"

static int is_fatal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGABRT || sig == SIGTRAP;
}

/* Whether a fault at `address`, with the stack pointer at `sp`, is the
 * stack of a thread of `pid` overflowing. */
static int is_stack_overflow(pid_t pid, uint64_t address, uint64_t sp)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	struct stack_fault_scan scan;
	stack_fault_begin(&scan, address, sp);
	while (fgets(line, sizeof(line), f))
		stack_fault_line(&scan, line);
	fclose(f);
	return stack_fault_is_overflow(&scan);
}

/* A pc in a jump slot (the engine's code in the tracee: jump_patch.h) is
 * its function's: the entry for the slot's own instructions, the function's
 * instruction for the copy of a displaced one.  0 when pc is in no slot. */
static uint64_t slot_site(const struct process *p, uint64_t pc)
{
	for (size_t i = 0; i < p->bps.size; i++) {
		const struct breakpoint *bp = &p->bps.slots[i];
		if (!bp->address || bp->patch_len != JUMP_PATCH_LEN || pc < bp->slot ||
		    pc >= bp->slot + JUMP_SLOT_SIZE)
			continue;
		uint64_t at = pc - bp->slot;
		for (int k = 0; at >= JUMP_MOVED_OFFSET && k + 1 < bp->jump.nbounds; k++)
			if (at - JUMP_MOVED_OFFSET >= bp->jump.to[k] &&
			    at - JUMP_MOVED_OFFSET < bp->jump.to[k + 1])
				return bp->function + bp->jump.from[k];
		return bp->function;
	}
	return 0;
}

static uint64_t slot_site_of(void *process, const struct user_regs_struct *r, int *own_code)
{
	*own_code = 0;
	return slot_site(process, r->rip);
}

void crash_note_take(struct crash_note *n, pid_t pid, pid_t tid, int sig, crash_site_finder site,
		     void *ctx)
{
	siginfo_t info;
	struct user_regs_struct r;
	if (!is_fatal(sig) || ptrace(PTRACE_GETSIGINFO, tid, 0, &info) < 0 ||
	    ptrace(PTRACE_GETREGS, tid, 0, &r) < 0)
		return;
	*n = (struct crash_note){.signal = sig, .code = info.si_code, .pc = r.rip};
	int own_code = 0;
	n->site = site ? site(ctx, &r, &own_code) : 0;
	if (n->site && !own_code)
		n->flags |= CRASH_IN_TRACER;
	if (info.si_code > 0 && sig != SIGABRT && sig != SIGTRAP)
		n->fault_address = (uint64_t)(uintptr_t)info.si_addr;
	if (sig == SIGSEGV && info.si_code > 0 && is_stack_overflow(pid, n->fault_address, r.rsp))
		n->flags |= CRASH_STACK_OVERFLOW;
}

void crash_note_write(struct crash_note *n, pid_t tid, struct trace_session *s)
{
	unsigned long status = 0;
	if (!n->signal)
		return;
	if (ptrace(PTRACE_GETEVENTMSG, tid, 0, &status) == 0 && WIFSIGNALED((int)status) &&
	    WTERMSIG((int)status) == n->signal) {
		uint64_t frames[2] = {n->site ? n->site : n->pc, n->pc};
		trace_write_crash(s, (uint32_t)tid, n->signal, n->code, n->fault_address, frames,
				  n->site ? 2 : 1, n->flags);
	}
	n->signal = 0;
}

void crash_note_signal(struct thread *t, int sig)
{
	crash_note_take(&t->crash, t->proc->pid, t->tid, sig, slot_site_of, t->proc);
}

void crash_note_exit(struct thread *t)
{
	crash_note_write(&t->crash, t->tid, &t->proc->session);
}
