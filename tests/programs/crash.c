/*
 * crash.c - ends in a chosen way after a known call chain:
 *
 *   crash exit3   main -> prelude -> prelude_leaf, then returns 3
 *   crash segv    main -> prelude ..., crash_outer -> crash_inner, which
 *                 writes through a null pointer (SIGSEGV)
 *   crash abort   main -> prelude ..., abort_outer -> abort_inner -> abort()
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int prelude_leaf(int x)
{
	return x * 2;
}

static int prelude(void)
{
	return prelude_leaf(21);
}

static void crash_inner(int *volatile *where)
{
	**where = 1;
}

static void crash_outer(void)
{
	int *volatile nothing = NULL;
	crash_inner(&nothing);
}

static void abort_inner(void)
{
	abort();
}

static void abort_outer(void)
{
	abort_inner();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: crash exit3|segv|abort\n");
		return 2;
	}
	printf("prelude: %d\n", prelude());
	fflush(stdout);
	if (strcmp(argv[1], "segv") == 0)
		crash_outer();
	else if (strcmp(argv[1], "abort") == 0)
		abort_outer();
	else if (strcmp(argv[1], "exit3") == 0)
		return 3;
	return 2;
}
