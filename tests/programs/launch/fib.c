/*
 * fib.c - fib(10) recursively: 177 calls of fib, one of main.
 */
#include <stdio.h>

static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int main(void)
{
	printf("fib(10) = %d\n", fib(10));
	return 0;
}
