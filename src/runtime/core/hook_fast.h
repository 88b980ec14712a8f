/*
 * hook_fast.h - the hooks' common case of an enter and of an exit, inline,
 * for hooks.c and for the engines whose stubs record calls in the process
 * (the in-process engine's entry and return, library calls): no function
 * call between a stub and the stream write.  Anything else goes to
 * runtime_hook_event_checked (hooks.c's slow path).
 *
 * While a fast path writes, the thread's generation is RUNTIME_GEN_BUSY:
 * a signal handler whose traced code runs in between finds the thread busy
 * and its calls wait in the thread's deferred queue (hooks.c).
 */
#ifndef CALLTRACE_HOOK_FAST_H
#define CALLTRACE_HOOK_FAST_H

#include "../runtime.h"

#define HOOK_SIGNAL_FENCE() __atomic_signal_fence(__ATOMIC_SEQ_CST)

/* The common case of an enter: the thread's generation current, room in
 * the window, the function's id cached.  Whether it was written. */
static inline __attribute__((always_inline)) int
hook_fast_enter(struct thread_state *t, uint32_t state, uint64_t fn, uint64_t sp)
{
	struct trace_stream *st = &t->stream;
	if (unlikely(state != t->gen))
		return 0;
	t->gen = RUNTIME_GEN_BUSY;
	HOOK_SIGNAL_FENCE();
	uint8_t *pos = st->pos;
	int64_t fid = -1;
	if (likely(pos < st->limit && st->depth < t->fast_depth))
		fid = trace_stream_cached_fid(st, fn);
	if (likely(fid >= 0))
		trace_stream_put_enter_fid(st, pos, fn, (uint32_t)fid, trace_clock_tsc(), sp);
	HOOK_SIGNAL_FENCE();
	t->gen = state;
	return fid >= 0;
}

/* The common case of an exit: the same, and it ends the innermost call. */
static inline __attribute__((always_inline)) int hook_fast_exit(struct thread_state *t,
								uint32_t state, uint64_t fn)
{
	struct trace_stream *st = &t->stream;
	if (unlikely(state != t->gen))
		return 0;
	t->gen = RUNTIME_GEN_BUSY;
	HOOK_SIGNAL_FENCE();
	int ok = likely(st->pos < st->limit && st->depth - 1 < t->fast_depth) &&
		 trace_stream_exits_innermost(st, fn);
	if (likely(ok))
		trace_stream_put_exit_innermost(st, trace_clock_tsc());
	HOOK_SIGNAL_FENCE();
	t->gen = state;
	return ok;
}

/* runtime_hook_event's enter, inline: whether the enter was counted. */
static inline __attribute__((always_inline)) int runtime_hook_enter(struct thread_state *t,
								    uint64_t fn, uint64_t sp)
{
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (likely(state != 0) && hook_fast_enter(t, state, fn, sp))
		return 1;
	return runtime_hook_event_checked(t, fn, HOOK_ENTER, sp);
}

/* runtime_hook_event's exit, inline. */
static inline __attribute__((always_inline)) void runtime_hook_exit(struct thread_state *t,
								    uint64_t fn)
{
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (unlikely(state == 0) || !hook_fast_exit(t, state, fn))
		runtime_hook_event_checked(t, fn, HOOK_EXIT, 0);
}

#endif
