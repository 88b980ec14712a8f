/*
 * attach_rate.c - what one traced call costs in a running multi-threaded
 * process: THREADS threads wait (spinning) until the file GOFILE exists,
 * then each makes N calls of a small function and measures the CPU time
 * they took on its own clock; prints the mean CPU ns per call over the
 * threads.  Writes its pid to PIDFILE once the threads are waiting.
 *
 * Usage: attach_rate PIDFILE GOFILE N THREADS
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static atomic_int go, ready;
static long calls;
static volatile unsigned sink;

__attribute__((noinline)) unsigned rate_leaf(unsigned x)
{
	sink = x;
	return x * 2654435761u;
}

static double thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *worker(void *arg)
{
	double *ns_per_call = arg;
	unsigned acc = 0;
	atomic_fetch_add(&ready, 1);
	while (!atomic_load(&go))
		;
	double t0 = thread_cpu_ns();
	for (long i = 0; i < calls; i++)
		acc += rate_leaf((unsigned)i);
	*ns_per_call = (thread_cpu_ns() - t0) / (double)calls;
	sink = acc;
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc == 5 ? atoi(argv[4]) : 0;
	calls = argc == 5 ? atol(argv[3]) : 0;
	if (n < 1 || n > MAX_THREADS || calls < 1) {
		fprintf(stderr, "usage: attach_rate PIDFILE GOFILE N THREADS (1 to %d)\n",
			MAX_THREADS);
		return 2;
	}
	pthread_t t[MAX_THREADS];
	double ns[MAX_THREADS];
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, &ns[i]);
	while (atomic_load(&ready) < n)
		usleep(1000);
	FILE *f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0)
		return 2;
	while (access(argv[2], F_OK) != 0)
		usleep(1000);
	atomic_store(&go, 1);
	double sum = 0;
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		sum += ns[i];
	}
	printf("%.2f\n", sum / n);
	return 0;
}
