/*
 * busy_calls.c - a process to attach to and detach from while it is busy:
 * THREADS threads (the main one among them) call small functions in a
 * loop that never sleeps, so an attach or a detach finds threads anywhere:
 * on a function's first bytes, inside a prologue, on a return.  The
 * functions have different prologues (a frame, none, pushes, a large
 * stack frame, a tail call) so that both kinds of entry are exercised.
 *
 * Each round computes the same sum; a round whose sum differs from the
 * first one's means a register or the stack was changed under the thread.
 * Runs rounds until the file STOPFILE exists, then prints the round sum of
 * every thread and the number of bad rounds, and exits with status 3 (1
 * if any round was bad).  Writes its pid to PIDFILE once every thread runs.
 * With "signals", a timer also interrupts the process every millisecond
 * with a handler that calls a function too, so that threads are found in
 * handlers and signals are on their way at attach and detach.
 *
 * Usage: busy_calls PIDFILE STOPFILE THREADS [signals]
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include "pid_file.h"

#define MAX_THREADS 16
#define CALLS_PER_ROUND 200

static const char *stop_path;
static atomic_int started;

__attribute__((noinline)) static long busy_leaf(long x)
{
	return x * 7 + 3;
}

__attribute__((noinline)) static long busy_pushes(long a, long b, long c)
{
	long s = 0;
	for (long i = 0; i < (a & 3) + 1; i++)
		s += busy_leaf(a + i) ^ (b + c);
	return s;
}

__attribute__((noinline)) static long busy_big_frame(long x)
{
	volatile char buf[512];
	memset((char *)buf, (int)(x & 0x7f), sizeof(buf));
	return buf[x & 511] + busy_leaf(x);
}

__attribute__((noinline)) static long busy_tail(long x)
{
	return busy_leaf(x + 1);
}

__attribute__((noinline)) static long busy_step(long x)
{
	return busy_pushes(x, x >> 1, x >> 2) + busy_big_frame(x) + busy_tail(x);
}

static volatile sig_atomic_t handled;

__attribute__((noinline)) static void busy_handler(int sig)
{
	handled = (sig_atomic_t)busy_leaf(handled + sig) & 0xffff;
}

static void start_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = busy_handler;
	sa.sa_flags = SA_RESTART;
	struct itimerval every_ms = {{0, 1000}, {0, 1000}};
	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &every_ms, NULL) < 0) {
		perror("busy_calls: timer");
		exit(2);
	}
}

static void stop_signals(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
}

static long busy_round(void)
{
	long sum = 0;
	for (long i = 0; i < CALLS_PER_ROUND; i++)
		sum = sum * 31 + busy_step(i);
	return sum;
}

struct worker {
	pthread_t thread;
	long sum;
	long rounds, bad;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->sum = busy_round();
	atomic_fetch_add(&started, 1);
	while (access(stop_path, F_OK) != 0) {
		if (busy_round() != w->sum)
			w->bad++;
		w->rounds++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 4 || argc == 5 ? atoi(argv[3]) : 0;
	int signals = argc == 5 && strcmp(argv[4], "signals") == 0;
	if (n < 1 || n > MAX_THREADS || (argc == 5 && !signals)) {
		fprintf(stderr, "usage: busy_calls PIDFILE STOPFILE THREADS (1 to %d) [signals]\n",
			MAX_THREADS);
		return 2;
	}
	if (signals)
		start_signals();
	stop_path = argv[2];
	struct worker w[MAX_THREADS];
	memset(w, 0, sizeof(w));
	for (int i = 1; i < n; i++)
		pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
	while (atomic_load(&started) < n - 1)
		;
	announce(argv[1]);
	worker_main(&w[0]);
	long bad = w[0].bad;
	if (signals)
		stop_signals();
	for (int i = 1; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		bad += w[i].bad;
	}
	for (int i = 0; i < n; i++)
		printf("thread %d: round sum %ld\n", i, w[i].sum);
	printf("bad rounds: %ld\n", bad);
	return bad ? 1 : 3;
}
