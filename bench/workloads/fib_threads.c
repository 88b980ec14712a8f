/*
 * fib_threads.c - recursive Fibonacci in several threads at once: does the
 * per-call cost stay the same when threads record side by side?
 *
 *   fib_threads [THREADS [N]]     each thread computes fib(N) (default 4, 30)
 *
 * fib is the same function as in fib.c.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

__attribute__((noinline, noclone)) long fib(int n)
{
	if (n < 2)
		return n;
	long a = fib(n - 1);
	long b = fib(n - 2);
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}

static int fib_n;

static void *worker(void *arg)
{
	long *result = arg;
	*result = fib(fib_n);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	fib_n = argc > 2 ? atoi(argv[2]) : 30;
	if (threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "fib_threads: 1 to %d threads\n", MAX_THREADS);
		return 2;
	}
	pthread_t tid[MAX_THREADS];
	long result[MAX_THREADS];
	for (int i = 0; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, worker, &result[i]) != 0) {
			fprintf(stderr, "fib_threads: pthread_create failed\n");
			return 1;
		}
	}
	long sum = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(tid[i], NULL);
		sum += result[i];
	}
	printf("%d threads x fib(%d) = %ld\n", threads, fib_n, sum);
	return 0;
}
