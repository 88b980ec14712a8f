/*
 * control_signal.h - what the runtime (src/runtime/session/control.c) and
 * `calltrace ctl` agree on about CALLTRACE_SIGNAL: how a signal is named,
 * and what a queued signal's value asks for.
 *
 * A plain signal (kill) switches recording over.  `calltrace ctl` queues
 * it (sigqueue) with a value that says what it wants, so that "start" and
 * "stop" need not know the program's state: start leaves recording on,
 * stop leaves it off, whatever it was.
 */
#ifndef CALLTRACE_CONTROL_SIGNAL_H
#define CALLTRACE_CONTROL_SIGNAL_H

#include <signal.h>
#include <stdlib.h>
#include <string.h>

enum control_request {
	CONTROL_TOGGLE = 0,
	CONTROL_START = 0x43540001,
	CONTROL_STOP,
	CONTROL_SNAPSHOT, /* copy the trace as it is (a ring's last calls) */
};

/* The signal `name` names (SIGUSR2, USR2 or a number), or 0. */
static inline int control_signal_number(const char *name)
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

/* Whether `sig` can carry requests: a signal that can be caught. */
static inline int control_signal_usable(int sig)
{
	return sig != 0 && sig != SIGKILL && sig != SIGSTOP;
}

#endif
