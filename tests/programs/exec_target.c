/*
 * exec_target.c - a small instrumented program that other test programs
 * exec: main -> target_start -> target_leaf x2, then target_finish.
 *
 * Usage: exec_target [EXIT_CODE]
 */
#include <stdio.h>
#include <stdlib.h>

static int target_leaf(int x)
{
	return x + 1;
}

static int target_start(void)
{
	int a = target_leaf(1);
	return target_leaf(a);
}

static void target_finish(int v)
{
	printf("exec target: %d\n", v);
}

int main(int argc, char **argv)
{
	int v = target_start();
	target_finish(v);
	return argc > 1 ? atoi(argv[1]) : 0;
}
