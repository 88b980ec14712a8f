/*
 * crash_on_signal.c - an attach target that crashes when told to:
 * crash_on_signal PIDFILE STOPFILE THREADS MODE writes its pid to PIDFILE
 * (pid_file.h), waits in sigsuspend for SIGUSR1, then crashes: MODE null
 * writes through a NULL pointer in write_through_null(), MODE overflow
 * recurses in recurse_forever() until its stack is full.  STOPFILE and
 * THREADS are there for the tests' start_target, and unused.
 */
#include <signal.h>
#include <string.h>
#include "pid_file.h"

static volatile sig_atomic_t crash_requested;
static int *volatile nowhere;	       /* NULL, out of the compiler's sight */
static volatile unsigned long stop_at; /* never set: the recursion never ends */

static void on_usr1(int sig)
{
	(void)sig;
	crash_requested = 1;
}

static void write_through_null(int *p)
{
	*p = 42;
}

static unsigned long recurse_forever(unsigned long n)
{
	volatile char pad[64];
	pad[0] = (char)n;
	if (stop_at && n >= stop_at)
		return n;
	return recurse_forever(n + 1) + pad[0];
}

static void crash(const char *mode)
{
	if (strcmp(mode, "overflow") == 0)
		recurse_forever(0);
	else
		write_through_null(nowhere);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s PIDFILE STOPFILE THREADS null|overflow\n", argv[0]);
		return 2;
	}
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	announce(argv[1]);
	while (!crash_requested)
		sigsuspend(&old);
	crash(argv[4]);
	return 0;
}
