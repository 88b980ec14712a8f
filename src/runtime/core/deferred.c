/*
 * deferred.c - the calls a signal handler makes while its thread's hook is
 * writing an event.
 *
 * The interrupted hook holds a half-written event and its own copy of the
 * write position, so the handler's calls cannot go into the window.  They
 * wait, in order, in a small per-thread queue, and the window's limit is
 * cleared so that the thread's next hook takes the slow path, which writes
 * them (with the times they happened) before its own event.  A handler that
 * makes more calls than the queue holds loses the rest, whole calls at a
 * time (an enter dropped drops everything inside it and its exit), and the
 * loss is written into the trace as a thread record.
 */
#include "../runtime.h"

#include <stdio.h>

#define SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* Runs inside the signal handler's hook: only this thread touches the
 * queue, and the code it interrupted never holds it half-updated (the
 * count is stored after the entry). */
void runtime_defer_call(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t sp)
{
	if (kind == HOOK_EXIT && t->deferred_skip) {
		t->deferred_skip--;
		return;
	}
	uint32_t n = t->ndeferred;
	/* An enter is kept only with room for its exit and the exits of the
	 * calls kept open before it. */
	if (kind == HOOK_ENTER &&
	    (t->deferred_skip || !t->deferred || n + t->deferred_open + 2 > RUNTIME_DEFERRED_MAX)) {
		t->deferred_skip++;
		t->dropped++;
		return;
	}
	if (!t->deferred || n == RUNTIME_DEFERRED_MAX) {
		t->dropped++; /* an exit with no enter kept: cannot happen */
		return;
	}
	if (kind == HOOK_ENTER)
		t->deferred_open++;
	else if (t->deferred_open)
		t->deferred_open--;
	t->deferred[n] = (struct deferred_call){fn, trace_clock_tick(), sp, kind, 0};
	SIGNAL_FENCE();
	t->ndeferred = n + 1;
	t->stream.limit = NULL; /* the next hook takes the slow path */
}

/* Writes the queued calls; the thread is marked busy, so a handler that
 * comes meanwhile appends to the queue, and is written too. */
void runtime_deferred_flush(struct thread_state *t)
{
	/* The common case, without a locked instruction: a handler that queues
	 * a call clears the limit too. */
	if (likely(__atomic_load_n(&t->ndeferred, __ATOMIC_RELAXED) == 0 && t->stream.limit))
		return;
	uint32_t done = 0;
	for (;;) {
		uint32_t n = __atomic_load_n(&t->ndeferred, __ATOMIC_RELAXED);
		if (done == n) {
			/* Nothing came after the last one: empty the queue,
			 * unless a handler appends right now. */
			if (__atomic_compare_exchange_n(&t->ndeferred, &n, 0, 0, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED)) {
				t->deferred_open = 0;
				break;
			}
			continue;
		}
		const struct deferred_call *c = &t->deferred[done++];
		runtime_record_event(t, c->address, (enum hook_kind)c->kind, c->tick, c->sp);
	}
	if (!t->stream.limit)
		trace_stream_restore_limit(&t->stream);
}

/* A longjmp out of a handler that interrupted a hook: the handler's calls
 * are abandoned with it. */
void runtime_deferred_discard(struct thread_state *t)
{
	t->dropped += t->ndeferred;
	t->ndeferred = 0;
	t->deferred_skip = t->deferred_open = 0;
}

/* Says in the trace how many calls of this thread were lost. */
void runtime_report_dropped(struct thread_state *t)
{
	char count[16];
	uint32_t n = __atomic_exchange_n(&t->dropped, 0, __ATOMIC_RELAXED);
	if (n == 0)
		return;
	snprintf(count, sizeof(count), "%u", n);
	trace_write_thread(&runtime_session, t->stream.tid, THREAD_LOST_CALLS, count);
}
