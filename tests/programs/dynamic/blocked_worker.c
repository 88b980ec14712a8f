/*
 * blocked_worker.c - a process to attach to whose worker thread blocks
 * every signal (as many servers' workers do) and makes the first calls of
 * two functions only while an attach records: an attach must not leave a
 * mark there whose trap the blocked thread cannot take.
 *
 * The worker spins in idle_step until GOFILE exists, then calls late_one
 * (which calls late_two) exactly 1000 times, writes 1000 to DONEFILE and
 * spins again until STOPFILE exists.  The process prints what it did and
 * exits with status 3.
 *
 * Usage: blocked_worker PIDFILE STOPFILE IGNORED GOFILE DONEFILE
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "pid_file.h"

static const char *go_file, *done_file, *stop_file;
static volatile long sink;

__attribute__((noinline)) void idle_step(long i)
{
	sink += i;
}

__attribute__((noinline)) long late_two(long x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) long late_one(long x)
{
	return late_two(x) ^ x;
}

/* Spins until `path` exists, looked for every 4096 steps. */
static void spin_until(const char *path)
{
	for (long i = 1; i % 4096 != 0 || access(path, F_OK) != 0; i++)
		idle_step(i);
}

static void *worker(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	spin_until(go_file);
	long sum = 0;
	for (long i = 0; i < 1000; i++)
		sum += late_one(i);
	write_count(done_file, 1000);
	spin_until(stop_file);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: blocked_worker PIDFILE STOPFILE IGNORED GOFILE DONEFILE\n");
		return 2;
	}
	stop_file = argv[2], go_file = argv[4], done_file = argv[5];
	pthread_t t;
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 2;
	announce(argv[1]);
	void *sum;
	pthread_join(t, &sum);
	printf("late calls summed to %ld\n", (long)sum);
	return 3;
}
