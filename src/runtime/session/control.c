/*
 * control.c - switching recording on and off from outside the program.
 *
 * CALLTRACE_SIGNAL names a signal (SIGUSR2, USR2 or its number; none by
 * default, so that the program's own signals are never taken): each time
 * it comes, recording is switched on if it was off and off if it was on.
 * With CALLTRACE_START=off, nothing is recorded until the first one.
 * `calltrace ctl -p PID start|stop|toggle` sends it, queued with a value
 * that says which (control_signal.h): start and stop then leave recording
 * on or off whatever it was, so nobody needs to know the program's state.
 * `ctl snapshot` copies the trace as it is into NAME.snapshot-N.trace and
 * the recording goes on; for a ring (record --ring), a plain signal does
 * that instead of switching recording.
 */
#include "../runtime.h"
#include "calltrace.h"
#include "../../utils/control_signal.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int control_signal;

/* A copy of the trace as it is now, the recording going on (a ring's
 * most recent calls): said on stderr. */
static void take_snapshot(void)
{
	char name[PATH_MAX];
	if (trace_session_snapshot(&runtime_session, name, sizeof(name)) == 0)
		runtime_say("snapshot of the trace: %s", name);
	else
		runtime_say("no snapshot of the trace: %s", strerror(errno));
}

/* A request queued by `calltrace ctl` says what it wants; anything else
 * (kill, a queued signal of someone else's) switches recording over. */
static void on_control_signal(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)context;
	int saved = errno;
	int request = info->si_code == SI_QUEUE ? info->si_value.sival_int : CONTROL_TOGGLE;
	int on = calltrace_enabled();
	/* A flight recorder's signal asks for its last calls. */
	if (request == CONTROL_SNAPSHOT ||
	    (request == CONTROL_TOGGLE && runtime_session.ring && info->si_code != SI_QUEUE))
		take_snapshot();
	else if (request == CONTROL_START || (request != CONTROL_STOP && !on)) {
		if (!on)
			calltrace_start();
	} else if (on) {
		calltrace_stop();
	}
	errno = saved;
}

void runtime_control_install(void)
{
	const char *name = runtime_getenv("CALLTRACE_SIGNAL");
	if (!name || !*name)
		return;
	control_signal = control_signal_number(name);
	if (!control_signal_usable(control_signal)) {
		runtime_say("CALLTRACE_SIGNAL names no signal that can be caught; recording "
			    "cannot be switched from outside");
		return;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_control_signal;
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(control_signal, &sa, NULL);
	runtime_debug("signal %d switches recording on and off", control_signal);
}
