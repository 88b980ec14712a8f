/*
 * hooks.c - the -finstrument-functions hooks: the recording hot path.
 *
 * An enter or exit is: one load of runtime_state, a compare with the
 * thread's generation, a compare of the write position with the window's
 * limit, a probe of the thread's function-id cache (enter) or of its stack
 * of open calls (exit), a TSC read and a few bytes stored, with the call's
 * stack pointer on an enter (for longjmp.c).  No locks, no
 * system calls, no allocation.  Everything else goes to hook_slow().
 *
 * While a hook writes, it sets the window limit to NULL: a signal handler
 * whose instrumented code runs in between finds the stream busy and its
 * calls are dropped (both enter and exit, so the tree stays whole).
 */
#include "runtime.h"

#include <errno.h>

__thread struct thread_state runtime_thread __attribute__((tls_model("initial-exec")));

enum hook_kind { HOOK_ENTER, HOOK_EXIT };

static int stream_busy(const struct trace_stream *st)
{
	return st->pos && !st->limit;
}

/* After a stop/start: calls open at the stop end there.  (hook_slow sets
 * the generation when it is done.) */
static void notice_new_generation(struct thread_state *t)
{
	trace_stream_pause(&t->stream, trace_clock_tick());
}

/* CALLTRACE_MAX_DEPTH: calls deeper than it are counted, not written; their
 * stack pointers are kept all the same, for a longjmp out of them. */
static int depth_allows(struct thread_state *t, enum hook_kind kind, uint64_t sp)
{
	uint32_t depth = t->stream.depth;
	if (kind == HOOK_ENTER) {
		if (depth < runtime_max_depth)
			return 1;
		trace_stream_skip_enter(&t->stream, sp);
		return 0;
	}
	if (depth - 1 < runtime_max_depth)
		return 1; /* also false when depth is 0: entered before recording */
	if (depth)
		t->stream.depth = depth - 1;
	return 0;
}

/* The stack pointer of the call a hook records, as it was when that call
 * called the hook (the hook's own frame does not matter): how a longjmp
 * finds the calls it leaves (longjmp.c). */
#define HOOKED_CALL_SP() ((uint64_t)__builtin_dwarf_cfa())

/* Everything but the common case: first event of a thread, a full window,
 * a function new to the window, an exit that is not the innermost call,
 * start/stop, the depth limit.  While it works, the thread's generation
 * is RUNTIME_GEN_BUSY. */
static __attribute__((noinline)) void hook_slow(struct thread_state *t, uint64_t fn,
						enum hook_kind kind, uint64_t sp)
{
	if (t->gen == RUNTIME_GEN_BUSY || stream_busy(&t->stream)) {
		t->dropped++;
		return;
	}
	if (t->phase == THREAD_DEAD)
		return;
	int saved_errno = errno;
	uint32_t seen = t->gen;
	t->gen = RUNTIME_GEN_BUSY;
	if (runtime_init() < 0)
		goto out;
	uint32_t state = runtime_state;
	if (state == 0)
		goto out;
	if (t->phase == THREAD_NEW && runtime_thread_begin(t) < 0)
		goto out;
	if (seen != state)
		notice_new_generation(t);
	seen = state;
	if (!depth_allows(t, kind, sp))
		goto out;
	uint64_t tick = trace_clock_tick();
	if (kind == HOOK_ENTER)
		trace_stream_enter(&t->stream, fn, tick, sp);
	else
		trace_stream_exit(&t->stream, fn, tick);
out:
	t->gen = seen;
	errno = saved_errno;
}

/* The fast paths below call nothing but hook_slow, and that as their last
 * act, so that they need no stack frame. */
RUNTIME_EXPORT __attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	struct thread_state *t = &runtime_thread;
	struct trace_stream *st = &t->stream;
	uint32_t state = runtime_state;
	uint8_t *pos = st->pos, *limit = st->limit;
	if (unlikely(state != t->gen || pos >= limit || st->depth >= runtime_fast_depth))
		goto slow;
	int64_t fid = trace_stream_cached_fid(st, (uint64_t)fn);
	if (unlikely(fid < 0))
		goto slow;
	st->limit = NULL;
	trace_stream_put_enter_fid(st, pos, (uint64_t)fn, (uint32_t)fid, trace_clock_tsc(),
				   HOOKED_CALL_SP());
	st->limit = limit;
	return;
slow:
	if (state != 0)
		hook_slow(t, (uint64_t)fn, HOOK_ENTER, HOOKED_CALL_SP());
}

RUNTIME_EXPORT __attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn,
										    void *call_site)
{
	(void)call_site;
	struct thread_state *t = &runtime_thread;
	struct trace_stream *st = &t->stream;
	uint32_t state = runtime_state;
	uint8_t *limit = st->limit;
	if (unlikely(state != t->gen || st->pos >= limit || st->depth - 1 >= runtime_fast_depth ||
		     !trace_stream_exits_innermost(st, (uint64_t)fn)))
		goto slow;
	st->limit = NULL;
	trace_stream_put_exit_innermost(st, trace_clock_tsc());
	st->limit = limit;
	return;
slow:
	if (state != 0)
		hook_slow(t, (uint64_t)fn, HOOK_EXIT, 0);
}
