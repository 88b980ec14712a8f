/*
 * vfork.c - a vfork child leaves its parent's recording as it was.
 *
 * A vfork child runs on its parent's memory, this thread's state and
 * stream included, until it execs or exits, while the parent waits.  Were
 * it recorded, its calls (the execl, the _exit) would be written into the
 * parent's window as the parent's, and left open there: the parent's later
 * calls would nest under them.  The runtime's vfork (src/arch/<cpu>/
 * vfork.S, which makes the system call itself, the return address kept in
 * a register as the C library does) makes the thread the runtime's before
 * the system call: every hook of the child passes without writing or
 * taking a return address (RUNTIME_GEN_INTERNAL).  Back in the parent, the
 * generation it had comes back from a register, which the child cannot
 * change.  An exec'd image is recorded as its own process, as after fork.
 */
#include "../runtime.h"

#include <errno.h>

__attribute__((visibility("hidden"))) uint32_t runtime_vfork_begin(void)
{
	struct thread_state *t = &runtime_thread;
	uint32_t gen = t->gen;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->gen = RUNTIME_GEN_INTERNAL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return gen;
}

/* In the parent: `result` is the system call's (a pid, or -errno). */
__attribute__((visibility("hidden"))) long runtime_vfork_end(long result, uint32_t gen)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	runtime_thread.gen = gen;
	if (result < 0) {
		errno = (int)-result;
		return -1;
	}
	return result;
}
