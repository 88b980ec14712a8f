/*
 * fib.c - recursive Fibonacci: the per-call cost workload.
 *
 *   fib [N [REPEAT]]      computes fib(N) REPEAT times (default 32, 1)
 *
 * fib(N) makes 2*fib(N+1)-1 calls: about 7 million for N = 32.  fib is kept
 * out of line and unclonable, and an empty asm after the second call keeps
 * -O2 from turning either call into a loop, so every call stays a call.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noclone)) long fib(int n)
{
	if (n < 2)
		return n;
	long a = fib(n - 1);
	long b = fib(n - 2);
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 32;
	int repeat = argc > 2 ? atoi(argv[2]) : 1;
	long sum = 0;
	for (int i = 0; i < repeat; i++)
		sum += fib(n);
	printf("fib(%d) x %d = %ld\n", n, repeat, sum);
	return 0;
}
