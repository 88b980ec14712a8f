/*
 * bench_calls.c - calls to time the dynamic engine with: `calls N` makes N
 * calls of a small function of the executable, `libcalls N` N calls of a
 * library function (rand), `none N` the same loop without calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile unsigned sink;

__attribute__((noinline)) unsigned bench_leaf(unsigned x)
{
	sink = x;
	return x * 2654435761u;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bench_calls calls|libcalls|none N\n");
		return 2;
	}
	long n = atol(argv[2]);
	unsigned acc = 0;
	if (strcmp(argv[1], "calls") == 0)
		for (long i = 0; i < n; i++)
			acc += bench_leaf((unsigned)i);
	else if (strcmp(argv[1], "libcalls") == 0)
		for (long i = 0; i < n; i++)
			acc += (unsigned)rand();
	else
		for (long i = 0; i < n; i++)
			sink = (unsigned)i;
	printf("%u\n", acc);
	return 0;
}
