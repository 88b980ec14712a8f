/*
 * kernel_threads.h - each traced thread's kernel-side state: its open
 * system call and off-CPU interval, and the stream its events go to.
 */
#ifndef CALLTRACE_KERNEL_THREADS_H
#define CALLTRACE_KERNEL_THREADS_H

#include "kernel_events.h"
#include "../format/kernel_stream.h"

#define KTHREAD_DEPTH 4		   /* a system call, an off-CPU interval in it: 2 */
#define KTHREAD_CHUNK (256u << 10) /* payload of a thread's chunk */

struct kernel_thread {
	struct kernel_thread *next; /* in its hash bucket */
	uint32_t pid, tid;
	uint32_t depth;
	uint32_t own_depth;	      /* inside the tracer's own work (own_work.h) */
	uint64_t open[KTHREAD_DEPTH]; /* tagged addresses, innermost last */
	struct kernel_stream stream;
};

#define KTHREAD_BUCKETS 1024

struct kernel_threads {
	struct trace_session *session;
	struct kernel_thread *buckets[KTHREAD_BUCKETS];
	uint64_t lost; /* events the kernel could not hand over (of no thread) */
	uint64_t syscalls, offcpu;
	uint64_t unwritten; /* events of chunks the file had no room for */
};

void kernel_threads_init(struct kernel_threads *t, struct trace_session *s);
/* Applies one event to its thread's stream. */
void kernel_threads_apply(struct kernel_threads *t, const struct kernel_event *ev);
/* Writes every thread's gathered events into the trace. */
void kernel_threads_flush(struct kernel_threads *t);
/* Flushes and frees everything; calls still open stay open (unfinished). */
void kernel_threads_destroy(struct kernel_threads *t);

#endif
