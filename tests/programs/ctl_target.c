/*
 * ctl_target.c - a program switched on and off from outside (calltrace
 * ctl): for each number N read from stdin, handle_line() calls work() N
 * times, then "done N" is printed; it ends at end of input.  It prints its
 * pid first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int total;

__attribute__((noinline)) static void work(void)
{
	total++;
}

static void handle_line(int n)
{
	for (int i = 0; i < n; i++)
		work();
}

int main(void)
{
	char line[64];
	printf("%d\n", (int)getpid());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		int n = atoi(line);
		handle_line(n);
		printf("done %d\n", n);
		fflush(stdout);
	}
	return total == 0;
}
