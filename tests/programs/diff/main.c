/*
 * main.c - a program whose calls the diff test counts: with N (argv[1],
 * default 1), count_a calls a.c's static step N times, count_b calls b.c's
 * static step 2N times, and only_big runs when N > 2.
 */
#include <stdlib.h>

int count_a(int n);
int count_b(int n);

void only_big(void)
{
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	count_a(n);
	count_b(2 * n);
	if (n > 2)
		only_big();
	return 0;
}
