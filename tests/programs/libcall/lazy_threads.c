/*
 * lazy_threads.c - four threads make their first calls of the same C
 * library functions at the same moment (after a barrier), so that lazily
 * bound slots are resolved by several threads at once, then go on calling
 * them: ROUNDS rounds of `round_calls` (abs, labs, atoi, strtol, toupper,
 * isalpha).  Prints the sum; exits 0.
 *
 * Usage: lazy_threads ROUNDS
 */
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4

static pthread_barrier_t start;
static int rounds;

static long __attribute__((noinline)) round_calls(int i)
{
	return abs(-i) + labs(-1L) + atoi("7") + strtol("5", NULL, 10) + toupper('a') +
	       !!isalpha('b');
}

static void *worker(void *arg)
{
	long sum = 0;
	(void)arg;
	pthread_barrier_wait(&start);
	for (int i = 0; i < rounds; i++)
		sum += round_calls(i);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atoi(argv[1]) : 100;
	pthread_t t[THREADS];
	pthread_barrier_init(&start, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	long total = 0;
	for (int i = 0; i < THREADS; i++) {
		void *r;
		pthread_join(t[i], &r);
		total += (long)r;
	}
	printf("%ld\n", total);
	return 0;
}
