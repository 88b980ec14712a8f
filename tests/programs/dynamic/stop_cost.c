/*
 * stop_cost.c - the floor of any ptrace engine on this machine: the time of
 * one ptrace stop (an int3 in the child, waitpid and PTRACE_CONT in the
 * parent), printed in microseconds.  Pin it with taskset to measure the
 * same-CPU case.
 *
 * Usage: stop_cost [N]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000;
	int status;
	pid_t child = fork();
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		for (long i = 0; i < n; i++)
			__asm__ volatile("int3");
		_exit(0);
	}
	if (child < 0 || waitpid(child, &status, 0) != child)
		return 1;
	double start = now_ns();
	ptrace(PTRACE_CONT, child, 0, 0);
	long stops = 0;
	while (waitpid(child, &status, 0) == child && WIFSTOPPED(status)) {
		stops++;
		ptrace(PTRACE_CONT, child, 0, 0);
	}
	if (stops != n)
		return 1;
	printf("%.3f\n", (now_ns() - start) / (double)n / 1000);
	return 0;
}
