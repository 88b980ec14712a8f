/*
 * c_api.c - calltrace-rs's C API: calltrace_init() and calltrace_cleanup()
 * around a stretch of calls.  before() runs before calltrace_init() with
 * CALLTRACE_START=off (not recorded), during() 5 times between them, after()
 * after calltrace_cleanup() (not recorded).  Prints "c_api ok".
 */
#include <stdio.h>
#include "calltrace.h"

#define NOINLINE __attribute__((noinline))

NOINLINE int before(void)
{
	return 1;
}

NOINLINE int during(int i)
{
	return i * 2;
}

NOINLINE int after(void)
{
	return 3;
}

int main(void)
{
	int sum = before();
	calltrace_init();
	calltrace_start();
	for (int i = 0; i < 5; i++)
		sum += during(i);
	calltrace_cleanup();
	sum += after();
	printf("c_api %s\n", sum == 24 ? "ok" : "wrong");
	return 0;
}
