/*
 * attach_guard.c - a `calltrace attach` that is killed leaves the process
 * as it was.  The process the user started only watches: a child of it
 * (the worker) attaches, records and detaches.
 *
 *   - The watcher killed (kill -9 included): the worker gets SIGTERM
 *     (PR_SET_PDEATHSIG) and detaches as at Ctrl-C, whichever engine:
 *     every breakpoint or patched entry put back, the process let go.
 *   - The worker killed: the watcher puts the process back through the
 *     `rescue` it was given (the in-process engine's detach; the ptrace
 *     engine's breakpoints cannot be reached once their tracer is gone).
 *   - SIGINT, SIGTERM and SIGHUP the watcher gets are passed on to the
 *     worker.  The worker holds them blocked until its engine takes them:
 *     one that comes before the attach is done ends it as soon as it is.
 *
 * The watcher exits with the worker's status.
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t worker_pid;

static void pass_on(int sig)
{
	int saved = errno;
	if (worker_pid > 0)
		kill(worker_pid, sig == SIGHUP ? SIGTERM : sig);
	errno = saved;
}

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

/* In the worker: SIGTERM when the watcher dies (also if it died already). */
static void die_with_watcher(pid_t watcher)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != watcher)
		kill(getpid(), SIGTERM);
}

/* Waits for the worker; its exit status, or -signal. */
static int wait_worker(pid_t pid)
{
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int attach_guarded(int (*work)(void *), int (*rescue)(void *, int), void *arg)
{
	sigset_t stops, old;
	stop_signals(&stops);
	sigprocmask(SIG_BLOCK, &stops, &old);
	fflush(NULL);
	pid_t watcher = getpid();
	pid_t pid = fork();
	if (pid < 0) { /* no worker: the attach runs here, unguarded */
		sigprocmask(SIG_SETMASK, &old, NULL);
		return work(arg);
	}
	if (pid == 0) {
		die_with_watcher(watcher);
		int rc = work(arg);
		fflush(NULL);
		_exit(rc);
	}
	worker_pid = pid;
	struct sigaction sa = {.sa_handler = pass_on}, saved[3];
	sigaction(SIGINT, &sa, &saved[0]);
	sigaction(SIGTERM, &sa, &saved[1]);
	sigaction(SIGHUP, &sa, &saved[2]);
	sigprocmask(SIG_SETMASK, &old, NULL);
	int rc = wait_worker(pid);
	worker_pid = 0;
	sigaction(SIGINT, &saved[0], NULL);
	sigaction(SIGTERM, &saved[1], NULL);
	sigaction(SIGHUP, &saved[2], NULL);
	return rc >= 0 ? rc : rescue(arg, -rc);
}
