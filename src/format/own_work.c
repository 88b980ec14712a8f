/*
 * own_work.c - the marks around the tracer's own work (own_work.h).
 */
#include "own_work.h"

#include <errno.h>
#include <unistd.h>

int trace_own_marks;

void trace_own_mark(long nr)
{
#if defined(__x86_64__)
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	(void)ret;
#else
	int saved = errno;
	syscall(nr);
	errno = saved;
#endif
}
