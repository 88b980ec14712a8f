/* cold_split.c - a function whose unlikely path GCC moves into a fragment
 * of its own (work.cold at -O2), entered by a jump with work's frame in
 * place: an engine that took it for a function would write its "return
 * address" over work's local array.  Prints 506 for 42, 11 otherwise. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, cold)) void rare(long v)
{
	fprintf(stderr, "rare %ld\n", v);
}

__attribute__((noinline)) void fill(long *p)
{
	p[0] = 5;
	p[1] = 6;
}

__attribute__((noinline)) long work(long n)
{
	long slot[2];
	fill(slot);
	if (__builtin_expect(n == 42, 0)) {
		rare(n);
		return slot[0] * 100 + slot[1];
	}
	return slot[0] + slot[1];
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	printf("%ld\n", work(n));
	return 0;
}
