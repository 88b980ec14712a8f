/*
 * stripped.c - a program to record after `strip`: functions of every kind
 * whose entries only .eh_frame tells once the symbol table is gone: local
 * and exported ones (the exported keep a name, in .dynsym), recursion, a
 * call through a pointer, an error path the compiler moves to a ".cold"
 * fragment at -O2 (jumped into, never called: not a function), and its own
 * getenv, which finds nothing (as bash's does before it set up its
 * variables): the runtime must read its settings all the same.
 *
 * Usage: stripped [N]   (prints a sum; N defaults to 5)
 */
#include <stdio.h>
#include <stdlib.h>

char *getenv(const char *name)
{
	(void)name;
	return NULL;
}

__attribute__((noinline)) static int leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) static int depth(int n)
{
	return n <= 0 ? leaf(n) : depth(n - 1) + 1;
}

__attribute__((noinline)) static void complain(int x)
{
	fprintf(stderr, "odd value %d\n", x);
	abort();
}

__attribute__((noinline)) static int checked(int x)
{
	if (__builtin_expect(x < 0, 0)) {
		complain(x);
		fprintf(stderr, "unreachable %d\n", x);
		exit(3);
	}
	return leaf(x) + x;
}

__attribute__((noinline)) int exported_step(int x)
{
	return checked(x) + depth(x % 4);
}

static int (*volatile through_pointer)(int) = exported_step;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 5, sum = 0;
	for (int i = 0; i < n; i++)
		sum += through_pointer(i);
	printf("sum %d\n", sum);
	return 0;
}
