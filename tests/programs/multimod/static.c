/* static.c - the static library (libstatic.a) of the multi-module test program. */
#include "static.h"

int st_square(int x)
{
	return x * x;
}

int st_add(int a, int b)
{
	return a + b;
}
