/*
 * sigstorm.c - a 10 kHz signal storm over a busy loop of instrumented calls.
 * Usage: sigstorm real|prof ITERATIONS.  An interval timer (ITIMER_REAL:
 * SIGALRM, or ITIMER_PROF: SIGPROF) fires every 100 us; its handler calls
 * on_tick() -> tick_leaf().  Meanwhile the main code calls
 * main_work() -> main_leaf() ITERATIONS times.  It prints how many calls
 * each function got, the handler's being counted by the handler itself.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks, tick_leaves;
static unsigned long main_works, main_leaves;

static void tick_leaf(void)
{
	tick_leaves++;
}

static void on_tick(int sig)
{
	(void)sig;
	ticks++;
	tick_leaf();
}

static unsigned long main_leaf(unsigned long x)
{
	main_leaves++;
	return x * 2654435761u;
}

static unsigned long main_work(unsigned long i)
{
	main_works++;
	return main_leaf(i) ^ i;
}

static void set_timer(int which, long usec)
{
	struct itimerval it = {{0, usec}, {0, usec}};
	setitimer(which, &it, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "real") && strcmp(argv[1], "prof"))) {
		fprintf(stderr, "usage: sigstorm real|prof ITERATIONS\n");
		return 2;
	}
	int which = strcmp(argv[1], "real") == 0 ? ITIMER_REAL : ITIMER_PROF;
	int sig = which == ITIMER_REAL ? SIGALRM : SIGPROF;
	unsigned long iterations = strtoul(argv[2], NULL, 10);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
	set_timer(which, 100);
	unsigned long sum = 0;
	for (unsigned long i = 0; i < iterations; i++)
		sum += main_work(i);
	set_timer(which, 0);
	printf("main_work %lu main_leaf %lu on_tick %d tick_leaf %d sum %lu\n", main_works,
	       main_leaves, (int)ticks, (int)tick_leaves, sum);
	return 0;
}
