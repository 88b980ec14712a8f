/*
 * overflow.c - a stack overflow: infinite recursion, in the main thread
 * (overflow main) or in a second thread (overflow thread).  The recursion
 * goes through recurse_forever(); the program dies of SIGSEGV.  `overflow
 * mutual`: the same in the main thread through recurse_ping() and
 * recurse_pong(), which call each other.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static volatile unsigned long levels;
static volatile unsigned long stop_at; /* never set: the recursion never ends */

static unsigned long recurse_forever(unsigned long n)
{
	volatile char pad[64];
	pad[0] = (char)n;
	levels++;
	if (stop_at && n >= stop_at)
		return n;
	return recurse_forever(n + 1) + pad[0];
}

static unsigned long recurse_pong(unsigned long n);

static unsigned long recurse_ping(unsigned long n)
{
	levels++;
	return recurse_pong(n + 1) + 1;
}

static unsigned long recurse_pong(unsigned long n)
{
	levels++;
	return recurse_ping(n + 1) + 1;
}

static void *overflow_thread(void *arg)
{
	(void)arg;
	recurse_forever(0);
	return NULL;
}

static void start_overflow_thread(void)
{
	pthread_t t;
	pthread_create(&t, NULL, overflow_thread, NULL);
	pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2 ||
	    (strcmp(argv[1], "main") && strcmp(argv[1], "thread") && strcmp(argv[1], "mutual"))) {
		fprintf(stderr, "usage: overflow main|thread|mutual\n");
		return 2;
	}
	if (strcmp(argv[1], "main") == 0)
		recurse_forever(0);
	else if (strcmp(argv[1], "mutual") == 0)
		recurse_ping(0);
	else
		start_overflow_thread();
	return 0;
}
