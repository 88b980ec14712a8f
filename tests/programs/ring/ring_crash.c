/*
 * ring_crash.c - calls for a long time, then crashes in a known function:
 * for the flight recorder (record --ring).
 *
 *   ring_crash EARLY LAST [THREADS [ended]]
 *
 * main calls early_work() EARLY times, then last_work() LAST times, then
 * crash_outer() -> crash_inner(), which writes through NULL.  With THREADS
 * (4), THREADS - 1 busy threads call busy_work() all the while and one more
 * calls rare_work() RARE_CALLS times, at the start, then waits for the
 * crash (or, with "ended", returns: its thread ends).
 * Counts, not time: the calls are the same on any machine.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RARE_CALLS 25

static volatile int sink;
static pthread_barrier_t started;
static int rare_ends;

__attribute__((noinline)) void early_work(int i)
{
	sink += i;
}

__attribute__((noinline)) void last_work(int i)
{
	sink ^= i;
}

__attribute__((noinline)) void busy_work(int i)
{
	sink -= i;
}

__attribute__((noinline)) void rare_work(int i)
{
	sink |= i;
}

__attribute__((noinline)) void crash_inner(int *p)
{
	*p = sink;
}

__attribute__((noinline)) void crash_outer(int *p)
{
	crash_inner(p);
	sink++;
}

static void *busy_thread(void *arg)
{
	long n = (long)arg;
	pthread_barrier_wait(&started);
	for (;;)
		for (long i = 0; i < n; i++)
			busy_work((int)i);
	return NULL;
}

static void *rare_thread(void *arg)
{
	(void)arg;
	for (int i = 0; i < RARE_CALLS; i++)
		rare_work(i);
	pthread_barrier_wait(&started);
	if (rare_ends)
		return NULL;
	for (;;)
		pthread_barrier_wait(&started); /* never again: waits for the crash */
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long early = atol(argv[1]), last = atol(argv[2]);
	int threads = argc > 3 ? atoi(argv[3]) : 0;
	rare_ends = argc > 4 && strcmp(argv[4], "ended") == 0;
	pthread_t t;
	if (threads) {
		pthread_barrier_init(&started, NULL, (unsigned)threads + 1);
		for (int i = 0; i < threads - 1; i++)
			pthread_create(&t, NULL, busy_thread, (void *)1000L);
		pthread_create(&t, NULL, rare_thread, NULL);
		pthread_barrier_wait(&started);
	}
	for (long i = 0; i < early; i++)
		early_work((int)i);
	for (long i = 0; i < last; i++)
		last_work((int)i);
	crash_outer(NULL);
	return 0;
}
