/*
 * threadstorm.c - many threads making many calls at once.  Usage:
 * threadstorm THREADS CALLS.  Thread i (0-based) names itself "storm-i"
 * and calls storm_work() CALLS + i times, each calling storm_leaf() once;
 * all threads start together.  Prints the totals.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long calls_each;
static pthread_barrier_t start_line;

static unsigned long storm_leaf(unsigned long x)
{
	return x * 2654435761u;
}

static unsigned long storm_work(unsigned long i)
{
	return storm_leaf(i) ^ i;
}

static void *storm_thread(void *arg)
{
	unsigned long index = (unsigned long)arg, sum = 0;
	char name[16];
	snprintf(name, sizeof(name), "storm-%lu", index);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&start_line);
	for (unsigned long i = 0; i < calls_each + index; i++)
		sum += storm_work(i);
	return (void *)sum;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: threadstorm THREADS CALLS\n");
		return 2;
	}
	unsigned long n = strtoul(argv[1], NULL, 10);
	calls_each = strtoul(argv[2], NULL, 10);
	pthread_t *threads = calloc(n, sizeof(*threads));
	pthread_barrier_init(&start_line, NULL, (unsigned)n);
	for (unsigned long i = 0; i < n; i++)
		if (pthread_create(&threads[i], NULL, storm_thread, (void *)i) != 0) {
			perror("pthread_create");
			return 1;
		}
	unsigned long total = 0, sum = 0;
	for (unsigned long i = 0; i < n; i++) {
		void *r;
		pthread_join(threads[i], &r);
		sum += (unsigned long)r;
		total += calls_each + i;
	}
	printf("threads %lu storm_work %lu sum %lu\n", n, total, sum);
	free(threads);
	return 0;
}
