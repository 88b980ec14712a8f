/*
 * attach_loop.c - a process to attach to: the main thread and a worker
 * thread each run a fixed number of rounds of loop_step -> loop_leaf and
 * loop_wait (which sleeps inside a nested call, so that a detach almost
 * surely finds traced calls open on both stacks).  Writes its pid to the
 * file named by argv[1] once running, prints a checksum at the end and
 * exits with status 5.
 *
 * Usage: attach_loop PIDFILE ROUNDS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "pid_file.h"

static int loop_leaf(int x)
{
	return x * 3 + 1;
}

static int loop_step(int x)
{
	return loop_leaf(x) % 1000;
}

static void loop_nap(void)
{
	struct timespec pause = {0, 20 * 1000 * 1000};
	nanosleep(&pause, NULL);
}

static void loop_wait(void)
{
	loop_nap();
}

static long run_rounds(int rounds, int seed)
{
	long sum = 0;
	for (int i = 0; i < rounds; i++) {
		sum += loop_step(seed + i);
		loop_wait();
	}
	return sum;
}

static int rounds;

static void *worker_main(void *arg)
{
	long *out = arg;
	*out = run_rounds(rounds, 7);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: attach_loop PIDFILE ROUNDS\n");
		return 2;
	}
	rounds = atoi(argv[2]);
	pthread_t worker;
	long worker_sum = 0;
	pthread_create(&worker, NULL, worker_main, &worker_sum);
	announce(argv[1]);
	long sum = run_rounds(rounds, 1);
	pthread_join(worker, NULL);
	printf("sums: %ld %ld\n", sum, worker_sum);
	return 5;
}
