/*
 * static_b.c - the other static scale() (see static_a.c).
 */
#include <stdio.h>

int use_a(int v);

static int scale(int v)
{
	return v * 3;
}

int main(void)
{
	printf("%d %d\n", use_a(1), scale(4));
	return 0;
}
