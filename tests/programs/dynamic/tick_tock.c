/*
 * tick_tock.c - a process to attach to while it works: THREADS threads (the
 * main one among them) each call tick(), which calls tock() exactly once,
 * between stretches of work that call nothing, in a loop that never sleeps.
 * A trace of it must show every finished tick with one tock inside.
 *
 * Each round computes the same sum; a round whose sum differs from the
 * first one's means a register or the stack was changed under the thread.
 * Runs rounds until the file STOPFILE exists, then prints the round sum of
 * every thread, the number of bad rounds and how many CALLTRACE_* variables
 * its environment holds (an attach must leave it as it was), and exits
 * with status 3 (1 if any round was bad).  Writes its pid to PIDFILE once
 * every thread runs.
 *
 * Usage: tick_tock PIDFILE STOPFILE THREADS
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pid_file.h"

#define MAX_THREADS 16
#define TICKS_PER_ROUND 64
#define WORK_PER_TICK 3000

extern char **environ;
static const char *stop_path;
static atomic_int started;

__attribute__((noinline)) static long tock(long x)
{
	return (x * 2654435761) % 1000003;
}

__attribute__((noinline)) static long tick(long x)
{
	return tock(x + 1) ^ x;
}

static long round_sum(void)
{
	long sum = 0;
	for (long i = 0; i < TICKS_PER_ROUND; i++) {
		volatile long work = i;
		for (int k = 0; k < WORK_PER_TICK; k++)
			work = work * 6364136223846793005 + 1442695040888963407;
		sum = sum * 31 + tick(i) + (work & 1);
	}
	return sum;
}

struct worker {
	pthread_t thread;
	long sum, rounds, bad;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	w->sum = round_sum();
	atomic_fetch_add(&started, 1);
	while (access(stop_path, F_OK) != 0) {
		if (round_sum() != w->sum)
			w->bad++;
		w->rounds++;
	}
	return NULL;
}

static int calltrace_variables(void)
{
	int n = 0;
	for (char **e = environ; e && *e; e++)
		n += strncmp(*e, "CALLTRACE_", 10) == 0;
	return n;
}

int main(int argc, char **argv)
{
	int n = argc == 4 ? atoi(argv[3]) : 0;
	if (n < 1 || n > MAX_THREADS) {
		fprintf(stderr, "usage: tick_tock PIDFILE STOPFILE THREADS (1 to %d)\n",
			MAX_THREADS);
		return 2;
	}
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
	for (int i = 1; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		bad += w[i].bad;
	}
	for (int i = 0; i < n; i++)
		printf("thread %d: round sum %ld\n", i, w[i].sum);
	printf("bad rounds: %ld\n", bad);
	printf("calltrace variables: %d\n", calltrace_variables());
	return bad ? 1 : 3;
}
