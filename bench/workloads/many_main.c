/*
 * many_main.c - the executable of the many-functions workload: calls into a
 * shared library of hundreds of small generated functions (gen_many_lib.sh).
 *
 *   many [ROUNDS]      (default 500 rounds, about 3 million calls)
 */
#include <stdio.h>
#include <stdlib.h>

long many_round(long x);

__attribute__((noinline, noclone)) static long one_round(long r)
{
	return many_round(r);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 500;
	long acc = 0;
	for (long r = 0; r < rounds; r++)
		acc += one_round(r);
	printf("many: %ld rounds, checksum %ld\n", rounds, acc);
	return 0;
}
