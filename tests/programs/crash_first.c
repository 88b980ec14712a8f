/*
 * crash_first.c - `crash_first x`: a fault in the first instruction of a
 * function (load's load through a null pointer, which at -O2 is all of it
 * but its ret), after one call that completed (prelude).  Without an
 * argument: no fault, exit status 0.
 */
#include <stddef.h>

static volatile int seen;

__attribute__((noinline)) int load(const int *p)
{
	return *p;
}

__attribute__((noinline)) int prelude(int x)
{
	seen = x;
	return x + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	int v = prelude(argc);
	return load(argc > 1 ? NULL : &v) - v;
}
