/*
 * toggle.c - recording switched by a signal (CALLTRACE_SIGNAL=SIGUSR2):
 * work() 3 times, raise(SIGUSR2), work() 4 times, raise(SIGUSR2), work()
 * 5 times.  Run with CALLTRACE_START=off, only the 4 in the middle are
 * recorded.  Prints "toggle 12".
 */
#include <signal.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static int done;

NOINLINE void work(void)
{
	done++;
}

static void repeat(int n)
{
	for (int i = 0; i < n; i++)
		work();
}

int main(void)
{
	repeat(3);
	raise(SIGUSR2);
	repeat(4);
	raise(SIGUSR2);
	repeat(5);
	printf("toggle %d\n", done);
	return 0;
}
