/*
 * patch_signals.c - keeps the marks' trap (patch_lazy.c) deliverable: the
 * kernel kills a process whose int3 raises a SIGTRAP it blocks, and a
 * program's handler for SIGTRAP would take the marks' traps.  So, once
 * entries are marked, the program's signal masks never hold SIGTRAP
 * (sigprocmask, pthread_sigmask, sigsuspend, and the mask a handler runs
 * with), and its SIGTRAP handler is kept aside: the marks' handler passes
 * on to it every trap that is not a mark, and the program reads it back as
 * its own.
 *
 * These take over the C library's when the runtime is preloaded (calltrace
 * record); an attached process keeps the C library's.
 */
#include "../runtime.h"
#include "patch_shadow.h"

#include <dlfcn.h>
#include <signal.h>
#include <string.h>

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
typedef int (*action_fn)(int, const struct sigaction *, struct sigaction *);
typedef int (*suspend_fn)(const sigset_t *);

static void *next(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* `set` without SIGTRAP when the marks are in the code, in `copy`. */
static const sigset_t *trap_left_out(const sigset_t *set, sigset_t *copy)
{
	if (!set || !runtime_patch_trap_active() || !sigismember(set, SIGTRAP))
		return set;
	*copy = *set;
	sigdelset(copy, SIGTRAP);
	return copy;
}

int runtime_patch_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	static action_fn real;
	if (!real)
		real = (action_fn)next("sigaction");
	return real ? real(sig, act, old) : -1;
}

RUNTIME_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	static mask_fn real;
	if (!real)
		real = (mask_fn)next("sigprocmask");
	sigset_t copy;
	return real ? real(how, how == SIG_UNBLOCK ? set : trap_left_out(set, &copy), old) : -1;
}

RUNTIME_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	static mask_fn real;
	if (!real)
		real = (mask_fn)next("pthread_sigmask");
	sigset_t copy;
	return real ? real(how, how == SIG_UNBLOCK ? set : trap_left_out(set, &copy), old) : -1;
}

RUNTIME_EXPORT int sigsuspend(const sigset_t *set)
{
	static suspend_fn real;
	if (!real)
		real = (suspend_fn)next("sigsuspend");
	sigset_t copy;
	return real ? real(trap_left_out(set, &copy)) : -1;
}

RUNTIME_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction copy;
	if (act) {
		copy = *act;
		sigset_t mask;
		const sigset_t *m = trap_left_out(&act->sa_mask, &mask);
		if (m == &mask)
			copy.sa_mask = mask;
		act = &copy;
	}
	if (sig == SIGTRAP && runtime_patch_trap_active())
		return runtime_patch_trap_chain(act, old);
	return runtime_patch_real_sigaction(sig, act, old);
}

RUNTIME_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = SA_RESTART;
	sigemptyset(&act.sa_mask);
	if (sig != SIGTRAP || !runtime_patch_trap_active()) {
		static __sighandler_t (*real)(int, __sighandler_t);
		if (!real)
			real = (__sighandler_t(*)(int, __sighandler_t))next("signal");
		return real ? real(sig, handler) : SIG_ERR;
	}
	return runtime_patch_trap_chain(&act, &old) == 0 ? old.sa_handler : SIG_ERR;
}
