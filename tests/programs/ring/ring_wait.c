/*
 * ring_wait.c - calls, then waits to be looked at, then calls again: for a
 * snapshot of a ring taken while the program runs.
 *
 *   ring_wait EARLY LAST READY GO [BUSY]
 *
 * Calls early_work() EARLY times and last_work() LAST times, writes its pid
 * into the file READY, waits (making no call) until the file GO exists,
 * then calls after_work() 10 times and exits 0.  With BUSY, that many
 * threads call busy_work() all the while, from the start.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) void early_work(int i)
{
	sink += i;
}

__attribute__((noinline)) void last_work(int i)
{
	sink ^= i;
}

__attribute__((noinline)) void after_work(int i)
{
	sink -= i;
}

__attribute__((noinline)) void busy_work(int i)
{
	sink |= i;
}

static void *busy_thread(void *arg)
{
	(void)arg;
	for (int i = 0;; i++)
		busy_work(i);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 5)
		return 2;
	long early = atol(argv[1]), last = atol(argv[2]);
	int busy = argc > 5 ? atoi(argv[5]) : 0;
	pthread_t t;
	for (int i = 0; i < busy; i++)
		pthread_create(&t, NULL, busy_thread, NULL);
	for (long i = 0; i < early; i++)
		early_work((int)i);
	for (long i = 0; i < last; i++)
		last_work((int)i);
	FILE *f = fopen(argv[3], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	struct timespec ms = {0, 1000000};
	while (access(argv[4], F_OK) != 0)
		nanosleep(&ms, NULL);
	for (int i = 0; i < 10; i++)
		after_work(i);
	return 0;
}
