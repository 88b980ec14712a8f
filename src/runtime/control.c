/*
 * control.c - switching recording on and off from outside the program.
 *
 * CALLTRACE_SIGNAL names a signal (SIGUSR2, USR2 or its number; none by
 * default, so that the program's own signals are never taken): each time
 * it comes, recording is switched on if it was off and off if it was on.
 * With CALLTRACE_START=off, nothing is recorded until the first one.
 * `calltrace ctl -p PID start|stop` sends it.
 */
#include "runtime.h"
#include "calltrace.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int control_signal;

/* The signal number that `name` names, or 0. */
int runtime_signal_number(const char *name)
{
	if (!name || !*name)
		return 0;
	char *end;
	long n = strtol(name, &end, 10);
	if (*end == '\0')
		return n > 0 && n < NSIG ? (int)n : 0;
	if (strncmp(name, "SIG", 3) == 0)
		name += 3;
	for (int sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		if (abbrev && strcmp(abbrev, name) == 0)
			return sig;
	}
	return 0;
}

static void on_control_signal(int sig)
{
	(void)sig;
	int saved = errno;
	if (calltrace_enabled())
		calltrace_stop();
	else
		calltrace_start();
	errno = saved;
}

void runtime_control_install(void)
{
	const char *name = runtime_getenv("CALLTRACE_SIGNAL");
	if (!name || !*name)
		return;
	control_signal = runtime_signal_number(name);
	if (control_signal == 0 || control_signal == SIGKILL || control_signal == SIGSTOP) {
		runtime_say("CALLTRACE_SIGNAL names no signal that can be caught; recording "
			    "cannot be switched from outside");
		return;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_control_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(control_signal, &sa, NULL);
	runtime_debug("signal %d switches recording on and off", control_signal);
}
