/*
 * timer_jumps.c - siglongjmp out of a timer's signal handler, which lands
 * anywhere: often in the middle of a hook of the runtime.  A loop of calls
 * runs until the handler has jumped out of it 50 times; then final_call.
 * Prints "jumps 50".
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

#define NOINLINE __attribute__((noinline))

static sigjmp_buf env;
static volatile int jumps, armed;

static NOINLINE int leaf(int x)
{
	return x * 3 + 1;
}

static NOINLINE int mid(int x)
{
	return leaf(x) + leaf(x + 1);
}

static NOINLINE int top(int x)
{
	return mid(x) + mid(x + 2);
}

static void on_alarm(int sig)
{
	(void)sig;
	if (armed) {
		armed = 0;
		jumps++;
		siglongjmp(env, 1);
	}
}

static NOINLINE void final_call(void)
{
}

static NOINLINE void spin(void)
{
	volatile long s = 0;
	armed = 1;
	for (;;)
		s += top((int)(s & 7));
}

int main(void)
{
	struct itimerval every = {{0, 300}, {0, 300}}, off = {{0, 0}, {0, 0}};
	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &every, 0);
	while (jumps < 50)
		if (sigsetjmp(env, 1) == 0)
			spin();
	setitimer(ITIMER_REAL, &off, 0);
	final_call();
	printf("jumps %d\n", jumps);
	return 0;
}
