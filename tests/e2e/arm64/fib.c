/* fib.c - an unmodified program for the aarch64 tests (arm64_engines.sh,
 * arm64_args.sh): fib(20) makes 21,891 calls. */
#include <stdio.h>
#include <stdlib.h>
int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}
int main(int argc, char **argv)
{
	printf("%d\n", fib(argc > 1 ? atoi(argv[1]) : 20));
	return 0;
}
