/*
 * fork_ticks.c - a process to attach to that keeps forking: each round it
 * forks a child that ticks for a while (tick() calls tock() once, as in
 * tick_tock.c), itself forks a grandchild that ticks a little, and exits
 * with status 3 when every sum came out right; the parent ticks meanwhile,
 * then waits for the child.  A trace of it must show every process's
 * finished ticks with one tock inside, children's and grandchildren's too.
 *
 * Runs rounds until the file STOPFILE exists, then prints whether it made
 * children and how many ended wrong (not status 3), and exits with status 3
 * (1 if any ended wrong).  Writes its pid to PIDFILE once it runs, and to
 * PIDFILE.forks how many children it has forked so far.  A child ticks
 * ROUNDS rounds (default 40, about 20 ms), its own child a quarter.
 *
 * Usage: fork_ticks PIDFILE STOPFILE [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "pid_file.h"

#define TICKS_PER_ROUND 64
#define WORK_PER_TICK 3000

__attribute__((noinline)) static long tock(long x)
{
	return (x * 2654435761) % 1000003;
}

__attribute__((noinline)) static long tick(long x)
{
	return tock(x + 1) ^ x;
}

static long round_sum(void)
{
	long sum = 0;
	for (long i = 0; i < TICKS_PER_ROUND; i++) {
		volatile long work = i;
		for (int k = 0; k < WORK_PER_TICK; k++)
			work = work * 6364136223846793005 + 1442695040888963407;
		sum = sum * 31 + tick(i) + (work & 1);
	}
	return sum;
}

/* Ticks `rounds` rounds; whether every round's sum was `want`. */
static int rounds_right(int rounds, long want)
{
	int right = 1;
	for (int i = 0; i < rounds; i++)
		right &= round_sum() == want;
	return right;
}

/* Forks a process that ticks `rounds` rounds (and, with `nested`, forks
 * one that ticks too) and exits 3 when all went right; its pid. */
static pid_t spawn_ticker(int rounds, int nested, long want)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	int right = 1, status = 0;
	pid_t inner = nested ? spawn_ticker(rounds / 4, 0, want) : 0;
	right &= rounds_right(rounds, want);
	if (inner > 0)
		right &= waitpid(inner, &status, 0) == inner && WIFEXITED(status) &&
			 WEXITSTATUS(status) == 3;
	exit(right && inner >= 0 ? 3 : 1);
}

int main(int argc, char **argv)
{
	int rounds = argc == 4 ? atoi(argv[3]) : 40;
	if (argc < 3 || argc > 4 || rounds < 4) {
		fprintf(stderr, "usage: fork_ticks PIDFILE STOPFILE [ROUNDS (4 or more)]\n");
		return 2;
	}
	long want = round_sum();
	long children = 0, wrong = 0;
	char forks[4096];
	snprintf(forks, sizeof(forks), "%s.forks", argv[1]);
	write_count(forks, 0);
	announce(argv[1]);
	while (access(argv[2], F_OK) != 0) {
		pid_t child = spawn_ticker(rounds, 1, want);
		int status = 0;
		write_count(forks, children + 1);
		wrong += !rounds_right(8, want);
		wrong += child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
			 WEXITSTATUS(status) != 3;
		children++;
	}
	printf("children: %s\n", children > 0 ? "some" : "none");
	printf("wrong: %ld\n", wrong);
	return wrong ? 1 : 3;
}
