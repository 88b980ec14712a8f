/*
 * tsan_stress.c - works the runtime from many threads at once, for a build
 * where the runtime is compiled with ThreadSanitizer and linked in.
 * Usage: tsan_stress ROUNDS.  Each round starts WORKERS threads that make
 * calls and marks; meanwhile a controller thread stops and starts
 * recording, and a forker thread forks children that make calls and leave
 * with _exit.  Threads come and go every round.  Prints the calls made.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "calltrace.h"

#define WORKERS 6
#define CALLS 20000

static volatile int round_over;
static unsigned long calls_made;

static unsigned long stress_leaf(unsigned long x)
{
	return x * 2654435761u;
}

static unsigned long stress_work(unsigned long i)
{
	return stress_leaf(i) ^ i;
}

static void *worker(void *arg)
{
	unsigned long sum = 0, index = (unsigned long)arg;
	char name[16];
	snprintf(name, sizeof(name), "worker-%lu", index);
	pthread_setname_np(pthread_self(), name);
	for (unsigned long i = 0; i < CALLS; i++) {
		sum += stress_work(i);
		if (i % 5000 == 0)
			calltrace_mark(name);
	}
	__atomic_add_fetch(&calls_made, CALLS, __ATOMIC_RELAXED);
	return (void *)sum;
}

static void *controller(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&round_over, __ATOMIC_ACQUIRE)) {
		calltrace_stop();
		usleep(200);
		calltrace_start();
		usleep(500);
	}
	calltrace_start();
	return NULL;
}

static void child_calls(void)
{
	for (unsigned long i = 0; i < 1000; i++)
		stress_work(i);
}

static void *forker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			child_calls();
			_exit(0);
		}
		int status;
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fprintf(stderr, "a forked child failed\n");
	}
	return NULL;
}

static void run_round(void)
{
	pthread_t workers[WORKERS], control, fork_thread;
	__atomic_store_n(&round_over, 0, __ATOMIC_RELEASE);
	pthread_create(&control, NULL, controller, NULL);
	pthread_create(&fork_thread, NULL, forker, NULL);
	for (unsigned long i = 0; i < WORKERS; i++)
		pthread_create(&workers[i], NULL, worker, (void *)i);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(workers[i], NULL);
	pthread_join(fork_thread, NULL);
	__atomic_store_n(&round_over, 1, __ATOMIC_RELEASE);
	pthread_join(control, NULL);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 3;
	for (int r = 0; r < rounds; r++)
		run_round();
	printf("rounds %d calls %lu\n", rounds, calls_made);
	return 0;
}
