/*
 * own_work.h - marks around the tracer's own work in a traced thread, so
 * that the kernel's record of its system calls (--syscalls, --sched) leaves
 * out those the tracer makes: opening the trace, writing its records,
 * replacing a full window, patching, ending the session.
 *
 * A mark is a system call of a number no kernel gives a meaning to: it
 * fails at once (ENOSYS; errno is left as it was), and the kernel's
 * raw_syscalls tracepoint sees it all the same.  The collector drops a
 * thread's events from a begin mark to its end mark (src/kernel/
 * kernel_threads.c; marks nest).  Marks are made only when the kernel's
 * events are recorded (trace_own_marks, set by the runtime from
 * CALLTRACE_KERNEL): a seccomp filter that kills on unknown system calls
 * would kill the program on the first one.
 */
#ifndef CALLTRACE_OWN_WORK_H
#define CALLTRACE_OWN_WORK_H

/* Below the x32 bit (1 << 30): plain unknown numbers on x86-64. */
#define TRACE_OWN_BEGIN_NR 0x0ca11700L
#define TRACE_OWN_END_NR 0x0ca11701L

extern int trace_own_marks; /* 1: mark the tracer's own work */

/* The mark itself: one system call that fails, errno untouched. */
void trace_own_mark(long nr);

static inline void trace_own_begin(void)
{
	if (__builtin_expect(trace_own_marks, 0))
		trace_own_mark(TRACE_OWN_BEGIN_NR);
}

static inline void trace_own_end(void)
{
	if (__builtin_expect(trace_own_marks, 0))
		trace_own_mark(TRACE_OWN_END_NR);
}

#endif
