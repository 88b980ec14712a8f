/*
 * spawned.c - the child that spawner.c starts.  Usage: spawned N: calls
 * child_work() 100 * N times, each calling child_leaf(), prints it and
 * exits with status 20 + N.
 */
#include <stdio.h>
#include <stdlib.h>

static int child_leaf(int i)
{
	return i * 3;
}

static int child_work(int i)
{
	return child_leaf(i) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	long sum = 0;
	for (int i = 0; i < 100 * n; i++)
		sum += child_work(i);
	printf("spawned %d: child_work %d sum %ld\n", n, 100 * n, sum);
	return 20 + n;
}
