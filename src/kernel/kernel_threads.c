/*
 * kernel_threads.c - turn a thread's kernel events, in time order, into
 * enters and exits of system calls and off-CPU intervals.
 *
 * A system call's enter carries its six raw argument registers and its exit
 * the raw return value.  An off-CPU interval is entered when the thread
 * leaves the CPU and exited when it is back: inside the system call it
 * slept in (blocked), or wherever it was pre-empted.  An exec ends the
 * execve in the old image (it returned 0) and starts the new image's
 * chunks (kernel_stream_exec: the reader gives the loader's system calls
 * to the image it loads); a thread's exit ends what it had open (exit_group never
 * returns).  A system call whose enter came before recording began has no
 * enter to end: its exit is dropped.
 *
 * The tracer's own system calls in the thread come between its begin and
 * end marks (src/format/own_work.h): they and the marks are dropped, and
 * so are the off-CPU intervals they make.  A mark left open (a crash in
 * the tracer's work) is closed by the thread's exit or exec; after events
 * were lost every thread's marks are taken as closed (an end mark may be
 * among the lost, and the program's calls must not vanish after it).
 */
#include "kernel_threads.h"
#include "syscall_capture.h"
#include "../format/own_work.h"

#include <stdlib.h>
#include <string.h>

#define EXECVE_NR 59	/* x86-64 */
#define EXECVEAT_NR 322 /* x86-64 */
#define VALUES_MAX 2048 /* the registers or the return, and the copies */

void kernel_threads_init(struct kernel_threads *t, struct trace_session *s)
{
	memset(t, 0, sizeof(*t));
	t->session = s;
}

static struct kernel_thread **slot_of(struct kernel_threads *t, uint32_t tid)
{
	struct kernel_thread **p = &t->buckets[tid % KTHREAD_BUCKETS];
	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return p;
}

static struct kernel_thread *thread_of(struct kernel_threads *t, uint32_t pid, uint32_t tid)
{
	struct kernel_thread **p = slot_of(t, tid);
	if (*p)
		return *p;
	struct kernel_thread *th = calloc(1, sizeof(*th));
	if (!th)
		return NULL;
	th->pid = pid;
	th->tid = tid;
	if (kernel_stream_init(&th->stream, t->session, pid, tid, KTHREAD_CHUNK) < 0) {
		free(th);
		return NULL;
	}
	*p = th;
	return th;
}

static void enter(struct kernel_thread *th, uint64_t address, uint64_t tick, const uint8_t *values,
		  uint32_t len)
{
	if (th->depth == KTHREAD_DEPTH)
		return;
	if (kernel_stream_enter(&th->stream, address, tick, values, len) == 0)
		th->open[th->depth++] = address;
}

static void leave(struct kernel_thread *th, uint64_t tick, const uint8_t *values, uint32_t len)
{
	if (th->depth == 0)
		return;
	th->depth--;
	kernel_stream_exit(&th->stream, tick, values, len);
}

static int top_kind(const struct kernel_thread *th)
{
	return th->depth ? (int)TRACE_CALL_KIND(th->open[th->depth - 1]) : -1;
}

static void syscall_enter(struct kernel_threads *t, struct kernel_thread *th,
			  const struct kernel_event *ev)
{
	uint8_t values[VALUES_MAX];
	while (th->depth) /* an exit missed (lost): what was open ended */
		leave(th, ev->tick, NULL, 0);
	uint32_t len = kernel_syscall_args(values, ev->args);
	if (ev->capture)
		len += syscall_capture_values(values + len, VALUES_MAX - len, ev->capture,
					      ev->capture_len);
	enter(th, TRACE_CALL_ADDRESS(CALL_SYSCALL, (uint64_t)ev->nr), ev->tick, values, len);
	t->syscalls++;
}

static void syscall_exit(struct kernel_thread *th, const struct kernel_event *ev)
{
	if (top_kind(th) == CALL_OFFCPU)
		leave(th, ev->tick, NULL, 0);
	if (top_kind(th) != CALL_SYSCALL)
		return;
	uint8_t values[VALUES_MAX];
	uint32_t len = kernel_syscall_ret(values, (int64_t)ev->args[0]);
	if (ev->capture)
		len += syscall_capture_values(values + len, VALUES_MAX - len, ev->capture,
					      ev->capture_len);
	leave(th, ev->tick, values, len);
}

static void exec_done(struct kernel_thread *th, const struct kernel_event *ev)
{
	if (top_kind(th) == CALL_OFFCPU)
		leave(th, ev->tick, NULL, 0);
	uint64_t nr = th->depth ? TRACE_CALL_WHERE(th->open[th->depth - 1]) : 0;
	if (top_kind(th) == CALL_SYSCALL && (nr == EXECVE_NR || nr == EXECVEAT_NR)) {
		uint8_t value[KERNEL_SYSCALL_RET_BYTES];
		leave(th, ev->tick, value, kernel_syscall_ret(value, 0));
	}
	while (th->depth)
		leave(th, ev->tick, NULL, 0);
	kernel_stream_exec(&th->stream);
	th->pid = th->stream.pid = ev->pid;
}

static void thread_exit(struct kernel_threads *t, struct kernel_thread *th,
			const struct kernel_event *ev)
{
	while (th->depth)
		leave(th, ev->tick, NULL, 0);
	kernel_stream_fini(&th->stream);
	t->unwritten += th->stream.lost_events;
	struct kernel_thread **p = slot_of(t, th->tid);
	*p = th->next;
	free(th);
}

/* 1 when the event is the tracer's own (a mark, or between marks). */
static int own_work(struct kernel_thread *th, const struct kernel_event *ev)
{
	if (ev->kind == KEV_SYS_ENTER && ev->nr == TRACE_OWN_BEGIN_NR) {
		th->own_depth++;
		return 1;
	}
	if (ev->kind == KEV_SYS_ENTER && ev->nr == TRACE_OWN_END_NR) {
		if (th->own_depth)
			th->own_depth--;
		return 1;
	}
	if (ev->kind == KEV_SYS_EXIT &&
	    (ev->nr == TRACE_OWN_BEGIN_NR || ev->nr == TRACE_OWN_END_NR))
		return 1;
	if (ev->kind == KEV_EXEC || ev->kind == KEV_THREAD_EXIT) {
		th->own_depth = 0;
		return 0;
	}
	return th->own_depth > 0;
}

static void close_own_work(struct kernel_threads *t)
{
	for (int b = 0; b < KTHREAD_BUCKETS; b++)
		for (struct kernel_thread *th = t->buckets[b]; th; th = th->next)
			th->own_depth = 0;
}

void kernel_threads_apply(struct kernel_threads *t, const struct kernel_event *ev)
{
	if (ev->kind == KEV_LOST) {
		t->lost += ev->args[0];
		close_own_work(t);
		return;
	}
	struct kernel_thread *th = thread_of(t, ev->pid, ev->tid);
	if (!th)
		return;
	if (own_work(th, ev))
		return;
	switch (ev->kind) {
	case KEV_SYS_ENTER:
		syscall_enter(t, th, ev);
		break;
	case KEV_SYS_EXIT:
		syscall_exit(th, ev);
		break;
	case KEV_SWITCH_OUT:
		if (top_kind(th) != CALL_OFFCPU) {
			enter(th,
			      TRACE_CALL_ADDRESS(CALL_OFFCPU,
						 ev->preempted ? OFFCPU_PREEMPTED : OFFCPU_BLOCKED),
			      ev->tick, NULL, 0);
			t->offcpu++;
		}
		break;
	case KEV_SWITCH_IN:
		if (top_kind(th) == CALL_OFFCPU)
			leave(th, ev->tick, NULL, 0);
		break;
	case KEV_EXEC:
		exec_done(th, ev);
		break;
	case KEV_THREAD_EXIT:
		thread_exit(t, th, ev);
		break;
	}
}

void kernel_threads_flush(struct kernel_threads *t)
{
	for (int b = 0; b < KTHREAD_BUCKETS; b++)
		for (struct kernel_thread *th = t->buckets[b]; th; th = th->next)
			kernel_stream_flush(&th->stream);
}

void kernel_threads_destroy(struct kernel_threads *t)
{
	for (int b = 0; b < KTHREAD_BUCKETS; b++) {
		struct kernel_thread *th = t->buckets[b];
		while (th) {
			struct kernel_thread *next = th->next;
			kernel_stream_fini(&th->stream);
			t->unwritten += th->stream.lost_events;
			free(th);
			th = next;
		}
		t->buckets[b] = NULL;
	}
}
