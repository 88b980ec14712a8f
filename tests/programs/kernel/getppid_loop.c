/*
 * getppid_loop.c - N getppid() calls as fast as they go, to overflow small
 * kernel rings (tests/e2e/kernel_lost.sh).
 *
 * usage: getppid_loop N
 */
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	for (long i = 0; i < n; i++)
		getppid();
	return 0;
}
