/*
 * patch_trap.c - the trap of the marks (patch_lazy.c): SIGTRAP's handler,
 * set once the first marks are written, which sends a thread that met a
 * mark on (runtime_patch_resume_after_trap), and hands any other trap to
 * the handler the program set (kept aside by patch_signals.c, which takes
 * the program's sigaction over).  SIGTRAP is never blocked: the kernel
 * kills a process whose trap is blocked.
 */
#include "../runtime.h"
#include "patch_shadow.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static struct sigaction previous;
static int trap_installed;

static void on_trap(int sig, siginfo_t *info, void *context);

void runtime_patch_trap_install(void)
{
	if (trap_installed)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_trap;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_RESTART;
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGTRAP);
	if (runtime_patch_real_sigaction(SIGTRAP, &sa, &previous) == 0)
		__atomic_store_n(&trap_installed, 1, __ATOMIC_RELEASE);
	/* A mask the process started with (its parent's, a posix_spawn's) may
	 * block SIGTRAP: the first mark met would kill it.  The threads made
	 * later inherit this one's mask. */
	uint64_t trap = 1ull << (SIGTRAP - 1);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &trap, NULL, sizeof(trap));
}

/* Hands a trap that is not a mark to the handler that was there before
 * (one set with SA_RESETHAND is the default's again from now on, as the
 * kernel would have made it). */
static void pass_on(int sig, siginfo_t *info, void *context)
{
	struct sigaction handler = previous;
	if (handler.sa_flags & SA_RESETHAND) {
		previous.sa_handler = SIG_DFL;
		previous.sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
	}
	if (handler.sa_flags & SA_SIGINFO) {
		if (handler.sa_sigaction) {
			handler.sa_sigaction(sig, info, context);
			return;
		}
	} else if (handler.sa_handler == SIG_IGN) {
		return;
	} else if (handler.sa_handler != SIG_DFL) {
		handler.sa_handler(sig);
		return;
	}
	struct sigaction dfl;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	runtime_patch_real_sigaction(SIGTRAP, &dfl, NULL);
	raise(SIGTRAP);
}

static void on_trap(int sig, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	int saved = errno;
	uint64_t resume = 0;
	if (info->si_code == ARCH_MARK_SI_CODE) {
		/* The runtime's own calls meanwhile pass; an attach's stop
		 * lets the thread finish before it closes the trace. */
		struct thread_state *t = &runtime_thread;
		uint32_t outer = t->in_patch_stub;
		t->in_patch_stub = 1;
		uint32_t gen = runtime_internal_begin(t);
		resume = runtime_patch_resume_after_trap(arch_context_mark_at(uc));
		runtime_internal_end(t, gen);
		t->in_patch_stub = outer;
	}
	errno = saved;
	if (resume)
		arch_context_set_pc(uc, resume);
	else
		pass_on(sig, info, context);
}

int runtime_patch_trap_active(void)
{
	return __atomic_load_n(&trap_installed, __ATOMIC_ACQUIRE);
}

int runtime_patch_trap_chain(const struct sigaction *act, struct sigaction *old)
{
	struct sigaction was = previous;
	if (act)
		previous = *act;
	if (old)
		*old = was;
	return 0;
}
