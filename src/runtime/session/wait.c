/*
 * wait.c - a child that a signal kills says nothing at its end (SIGKILL,
 * or a SIGTERM it does not handle): its parent learns how it ended when it
 * reaps it, and writes that into the trace as the child's exit status (128
 * + the signal), for the child's last image.  A child that ends by exit,
 * _exit or a crash writes its own (session.c, session_end.c, crash.c).
 *
 * waitpid, wait, wait3, wait4 and waitid are wrapped; the real ones are
 * looked up at start.
 */
#include "../runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

typedef pid_t (*wait4_fn)(pid_t, int *, int, struct rusage *);
typedef int (*waitid_fn)(idtype_t, id_t, siginfo_t *, int);

static wait4_fn real_wait4;
static waitid_fn real_waitid;

void runtime_wait_init(void)
{
	if (!real_wait4)
		real_wait4 = (wait4_fn)dlsym(RTLD_NEXT, "wait4");
	if (!real_waitid)
		real_waitid = (waitid_fn)dlsym(RTLD_NEXT, "waitid");
}

static void note_killed(pid_t pid, int sig)
{
	if (pid <= 0 || !runtime_session.header || runtime_session.pid != (uint32_t)getpid())
		return;
	int saved = errno;
	struct thread_state *t = &runtime_thread;
	uint32_t gen = runtime_internal_begin(t);
	trace_write_exit_of(&runtime_session, (uint32_t)pid, 128 + sig);
	runtime_internal_end(t, gen);
	errno = saved;
}

static pid_t reap(pid_t pid, int *status, int options, struct rusage *usage)
{
	int local = 0;
	int *st = status ? status : &local;
	pid_t got = real_wait4 ? real_wait4(pid, st, options, usage)
			       : (pid_t)syscall(SYS_wait4, pid, st, options, usage);
	if (got > 0 && WIFSIGNALED(*st))
		note_killed(got, WTERMSIG(*st));
	return got;
}

RUNTIME_EXPORT pid_t waitpid(pid_t pid, int *status, int options)
{
	return reap(pid, status, options, NULL);
}

RUNTIME_EXPORT pid_t wait(int *status)
{
	return reap(-1, status, 0, NULL);
}

RUNTIME_EXPORT pid_t wait3(int *status, int options, struct rusage *usage)
{
	return reap(-1, status, options, usage);
}

RUNTIME_EXPORT pid_t wait4(pid_t pid, int *status, int options, struct rusage *usage)
{
	return reap(pid, status, options, usage);
}

RUNTIME_EXPORT int waitid(idtype_t type, id_t id, siginfo_t *info, int options)
{
	int rc = real_waitid ? real_waitid(type, id, info, options)
			     : (int)syscall(SYS_waitid, type, id, info, options, NULL);
	if (rc == 0 && info && !(options & WNOWAIT) &&
	    (info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED))
		note_killed(info->si_pid, info->si_status);
	return rc;
}
