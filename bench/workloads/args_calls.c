/* args_calls.c - a two-int function or a char * function called N times:
 * the per-call cost of capturing arguments and return values
 * (bench/args_bench.sh).   args_calls ints|string N */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each does a little more than its job, so that every tracer can patch
 * its entry (uftrace's needs whole instructions over 5 bytes). */
static volatile long calls;

__attribute__((noinline)) int add2(int a, int b)
{
	calls++;
	return a + b;
}

__attribute__((noinline)) size_t slen(const char *s)
{
	calls++;
	return strlen(s);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long n = atol(argv[2]);
	long total = 0;
	static const char *words[] = {"alpha", "a somewhat longer string", "x"};
	if (strcmp(argv[1], "ints") == 0)
		for (long i = 0; i < n; i++)
			total += add2((int)i, 3);
	else
		for (long i = 0; i < n; i++)
			total += (long)slen(words[i % 3]);
	printf("%ld\n", total);
	return 0;
}
