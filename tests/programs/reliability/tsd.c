/*
 * tsd.c - thread-specific data whose destructor is instrumented.  Usage:
 * tsd THREADS.  Each thread sets a value for a pthread key created with
 * tsd_dtor as its destructor, calls tsd_work() once and exits; at its exit
 * tsd_dtor() runs and calls tsd_leaf().  Prints the destructor's count.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_key_t key;
static int dtor_runs;

static void tsd_leaf(void *value)
{
	__atomic_add_fetch(&dtor_runs, value != NULL, __ATOMIC_RELAXED);
}

static void tsd_dtor(void *value)
{
	tsd_leaf(value);
}

static int tsd_work(int i)
{
	return i + 1;
}

static void *tsd_thread(void *arg)
{
	pthread_setspecific(key, arg);
	tsd_work((int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t threads[64];
	if (n < 1 || n > 64)
		return 2;
	pthread_key_create(&key, tsd_dtor);
	for (int i = 0; i < n; i++)
		pthread_create(&threads[i], NULL, tsd_thread, (void *)(long)(i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	printf("threads %d tsd_dtor %d\n", n, dtor_runs);
	return 0;
}
