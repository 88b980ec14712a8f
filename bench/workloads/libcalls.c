/*
 * libcalls.c - N calls into the C library from one function: free(NULL),
 * the cheapest call there is that the compiler cannot drop (the pointer is
 * volatile), so that what a tracer adds per library call stands out.
 *
 *   libcalls N
 */
#include <stdlib.h>

static void __attribute__((noinline)) calls(long n)
{
	void *volatile p = NULL;
	for (long i = 0; i < n; i++)
		free(p);
}

int main(int argc, char **argv)
{
	calls(argc > 1 ? atol(argv[1]) : 1000000);
	return 0;
}
