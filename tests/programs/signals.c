/*
 * signals.c - signal handlers that call instrumented functions, and errno
 * kept across instrumented calls.
 *
 *   main -> install_handlers
 *        -> send_self(SIGUSR1) -> on_usr1 -> handler_work -> handler_leaf
 *        -> send_self(SIGUSR2) -> on_usr2 -> handler_leaf
 *        -> errno_check -> errno_bystander x ERRNO_ROUNDS
 *        -> handler_errno_check -> send_self(SIGUSR1) -> on_usr1 -> ...
 *
 * errno_check sets errno with a failing close(-1) before every call and
 * counts the calls after which errno changed; handler_errno_check checks that
 * errno survives a signal handler that makes instrumented calls.  Prints the
 * counts and exits with 4.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ERRNO_ROUNDS 1000000

static volatile sig_atomic_t usr1_hits, usr2_hits;

static int handler_leaf(int sig)
{
	return sig + 1;
}

static int handler_work(int sig)
{
	return handler_leaf(sig) * 2;
}

static void on_usr1(int sig)
{
	int saved = errno;
	if (handler_work(sig) > 0)
		usr1_hits++;
	errno = saved;
}

static void on_usr2(int sig)
{
	int saved = errno;
	if (handler_leaf(sig) > 0)
		usr2_hits++;
	errno = saved;
}

static void install_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
}

static void send_self(int sig)
{
	raise(sig);
}

static int errno_bystander(int i)
{
	return i & 7;
}

static long errno_check(void)
{
	long changed = 0;
	for (int i = 0; i < ERRNO_ROUNDS; i++) {
		close(-1);
		errno_bystander(i);
		if (errno != EBADF)
			changed++;
	}
	return changed;
}

static int handler_errno_check(void)
{
	close(-1);
	send_self(SIGUSR1);
	return errno == EBADF;
}

int main(void)
{
	install_handlers();
	send_self(SIGUSR1);
	send_self(SIGUSR2);
	long changed = errno_check();
	int kept = handler_errno_check();
	printf("usr1 %d usr2 %d errno changed %ld kept across handler %d\n", (int)usr1_hits,
	       (int)usr2_hits, changed, kept);
	return 4;
}
