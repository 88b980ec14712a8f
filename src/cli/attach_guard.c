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
 *     worker as SIGTERM, again every 100 ms until it ends: one that comes
 *     before the worker's engine takes them ends the attach as soon as
 *     it can.  In the worker they only ask for the stop (a terminal's
 *     Ctrl-C reaches both; a second one after the detach must not kill
 *     it): dynamic_attach_stop().
 *
 * The watcher exits with the worker's status.
 */
#include "cli.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t worker_pid;
static volatile sig_atomic_t stop_asked;

static void pass_on(int sig)
{
	(void)sig;
	int saved = errno;
	stop_asked = 1;
	if (worker_pid > 0)
		kill(worker_pid, SIGTERM);
	errno = saved;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NSTOP (sizeof(stop_signals) / sizeof(stop_signals[0]))

/* Sets `handler` for the stop signals, keeping the old ones in `old`; with
 * `restore`, puts `old` back instead. */
static void handle_stops(void (*handler)(int), struct sigaction *old, int restore)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	for (size_t i = 0; i < NSTOP; i++)
		sigaction(stop_signals[i], restore ? &old[i] : &sa, restore ? NULL : &old[i]);
}

/* In the worker: SIGTERM when the watcher dies (also if it died already). */
static void die_with_watcher(pid_t watcher)
{
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != watcher)
		dynamic_attach_stop(SIGTERM);
}

/* Waits for the worker, asking it to stop every 100 ms once asked to; its
 * exit status, or -signal. */
static int wait_worker(pid_t pid)
{
	int status;
	const struct timespec tick = {0, 100000000};
	for (;;) {
		pid_t got = waitpid(pid, &status, stop_asked ? WNOHANG : 0);
		if (got == pid)
			break;
		if (got < 0 && errno != EINTR)
			return 1;
		if (got == 0) {
			kill(pid, SIGTERM);
			nanosleep(&tick, NULL);
		}
	}
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int attach_guarded(int (*work)(void *), int (*rescue)(void *, int), void *arg)
{
	struct sigaction saved[NSTOP];
	fflush(NULL);
	pid_t watcher = getpid();
	stop_asked = 0;
	handle_stops(pass_on, saved, 0); /* before the fork: no signal is lost */
	pid_t pid = fork();
	if (pid < 0) { /* no worker: the attach runs here, unguarded */
		handle_stops(NULL, saved, 1);
		return work(arg);
	}
	if (pid == 0) {
		struct sigaction unused[NSTOP];
		handle_stops(dynamic_attach_stop, unused, 0);
		die_with_watcher(watcher);
		int rc = work(arg);
		fflush(NULL);
		_exit(rc);
	}
	worker_pid = pid;
	if (stop_asked)
		kill(pid, SIGTERM);
	int rc = wait_worker(pid);
	worker_pid = 0;
	handle_stops(NULL, saved, 1);
	return rc >= 0 ? rc : rescue(arg, -rc);
}
