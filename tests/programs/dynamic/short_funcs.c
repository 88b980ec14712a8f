/*
 * short_funcs.c - a process to attach to whose functions are shorter than
 * the jump an entry patch writes (4 bytes at -O2: `lea 1(%rdi),%eax; ret`),
 * each followed by padding the patch may cover, called between longer ones
 * so that a patch of them comes before and after other functions'.
 *
 * Runs until STOPFILE exists, then prints the sum of every round and exits
 * with status 3.  Writes its pid to PIDFILE once it runs.
 *
 * Usage: short_funcs PIDFILE STOPFILE [IGNORED]
 */
#include <stdio.h>
#include <unistd.h>
#include "pid_file.h"

__attribute__((noinline)) int next_of(int x)
{
	return x + 1;
}

__attribute__((noinline)) long mix(long a, long b)
{
	return (a * 0x9e3779b97f4a7c15) ^ (b >> 7) ^ (a + b) * 31;
}

__attribute__((noinline)) int previous_of(int x)
{
	return x - 1;
}

__attribute__((noinline)) long blend(long a, long b)
{
	return (b * 0x2545f4914f6cdd1d) - (a << 3) + (a ^ b) / 7;
}

static long one_round(void)
{
	long sum = 0;
	for (int i = 0; i < 1000; i++)
		sum = mix(sum, next_of(i)) + blend(sum, previous_of(i));
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: short_funcs PIDFILE STOPFILE\n");
		return 2;
	}
	long first = one_round(), bad = 0;
	announce(argv[1]);
	/* STOPFILE is looked for every 256 rounds: a loop that spends most of
	 * its time in access() is stopped in the C library nearly always, where
	 * the in-process attach does not call in. */
	for (unsigned round = 0; round % 256 != 0 || access(argv[2], F_OK) != 0; round++)
		bad += one_round() != first;
	printf("round sum %ld, bad rounds %ld\n", first, bad);
	return bad ? 1 : 3;
}
