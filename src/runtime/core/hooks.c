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
 * While a hook writes, the thread's generation is RUNTIME_GEN_BUSY, set
 * before the hook reads anything of its stream: a signal handler whose
 * instrumented code runs in between finds the thread busy, and its calls
 * wait in the thread's deferred queue (deferred.c) until the next hook,
 * which writes them first.  A handler that runs before the mark is set
 * writes its calls whole before the hook reads the stream.
 */
#include "../runtime.h"
#include "hook_fast.h"

#include <errno.h>

__thread struct thread_state runtime_thread __attribute__((tls_model("initial-exec")));

#define SIGNAL_FENCE() HOOK_SIGNAL_FENCE()

/* After a stop/start (or a longjmp that could not be followed): calls open
 * before end there.  After a module went away: every address is looked up
 * again, since another module may now be loaded there. */
static void notice_new_generation(struct thread_state *t, uint32_t seen)
{
	if (unlikely(t->session_epoch != RUNTIME_LOAD(runtime_session_epoch))) {
		uint32_t busy = runtime_internal_begin(t);
		runtime_thread_rejoin(t); /* attached again: a new session */
		if (runtime_time_filter)
			runtime_time_filter->reset(t);
		runtime_internal_end(t, busy);
	}
	uint32_t start_gen = RUNTIME_LOAD(runtime_start_gen);
	if (t->start_gen != start_gen || seen == RUNTIME_GEN_STALE) {
		uint64_t tick = trace_clock_tick();
		if (runtime_time_filter) /* those long enough end here too */
			runtime_time_filter->flush(t, 0, tick);
		trace_stream_pause(&t->stream, tick);
		if (runtime_time_filter)
			runtime_time_filter->reset(t);
		t->start_gen = start_gen;
	}
	uint32_t epoch = RUNTIME_LOAD(runtime_module_epoch);
	if (t->module_epoch != epoch) {
		trace_stream_forget_functions(&t->stream);
		t->module_epoch = epoch;
	}
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

/* Whether the stream now counts one more open call than `depth`. */
static int entered(const struct thread_state *t, uint32_t depth)
{
	return t->stream.depth == depth + 1;
}

/* Record-time filters (filters/record_filter.c): a call they leave out is counted
 * as open with no function, and its exit dropped. */
static int filters_allow(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t sp)
{
	struct trace_stream *st = &t->stream;
	if (kind == HOOK_ENTER) {
		if (runtime_record_filter->enter(t, fn))
			return 1;
		trace_stream_skip_enter(st, sp);
		return 0;
	}
	runtime_record_filter->exit(t, fn);
	uint32_t top = st->depth - 1;
	if (st->depth == 0 || top >= st->open_cap || st->open_calls[top].address != 0)
		return 1;
	st->depth = top;
	return 0;
}

int runtime_record_now(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t tick,
		       uint64_t sp)
{
	uint32_t depth = t->stream.depth;
	if (unlikely(runtime_filters_on) && !filters_allow(t, fn, kind, sp))
		return kind == HOOK_ENTER && entered(t, depth);
	if (!depth_allows(t, kind, sp))
		return kind == HOOK_ENTER && entered(t, depth);
	if (kind == HOOK_ENTER)
		trace_stream_enter(&t->stream, fn, tick, sp);
	else
		trace_stream_exit(&t->stream, fn, tick);
	return kind == HOOK_ENTER && entered(t, depth);
}

/* One event by the checked path (the thread is marked busy): through the
 * time filter when it is on (time_filter.c). */
int runtime_record_event(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t tick,
			 uint64_t sp)
{
	if (unlikely(runtime_time_filter_on))
		return runtime_time_filter->event(t, fn, kind, tick, sp);
	return runtime_record_now(t, fn, kind, tick, sp);
}

static void update_fast_depth(struct thread_state *t)
{
	uint32_t cap = t->stream.open_cap;
	t->fast_depth = runtime_fast_depth < cap ? runtime_fast_depth : cap;
}

/* The stack pointer of the call a hook records, as it was when that call
 * called the hook (the hook's own frame does not matter): how a longjmp
 * finds the calls it leaves (longjmp.c). */
#define HOOKED_CALL_SP() ((uint64_t)__builtin_dwarf_cfa())

/* Everything but the common case: first event of a thread, a full window,
 * a function new to the window, an exit that is not the innermost call,
 * start/stop, the depth limit, calls deferred by a signal handler.  While
 * it works, the thread's generation is RUNTIME_GEN_BUSY. */
static __attribute__((noinline)) int hook_slow(struct thread_state *t, uint64_t fn,
					       enum hook_kind kind, uint64_t sp)
{
	uint32_t seen = t->gen;
	int counted = 0;
	if (seen == RUNTIME_GEN_ARGS) /* sent here to write them (args_capture.c) */
		t->gen = seen = t->args_saved_gen;
	if (seen == RUNTIME_GEN_INTERNAL)
		return 0; /* the runtime's own doing */
	if (seen == RUNTIME_GEN_BUSY) {
		runtime_defer_call(t, fn, kind, sp);
		return kind == HOOK_ENTER; /* its exit must come, to be kept aside too */
	}
	if (t->phase == THREAD_DEAD) {
		if (kind == HOOK_ENTER)
			runtime_thread_call_after_end(t);
		return 0;
	}
	int saved_errno = errno;
	t->gen = RUNTIME_GEN_BUSY;
	SIGNAL_FENCE();
	uint32_t state;
	if (runtime_init() < 0 || (state = RUNTIME_LOAD(runtime_state)) == 0)
		goto out;
	/* Attached, at a full window: is the calltrace that attached still there? */
	if (unlikely(runtime_attach_mode) && t->stream.pos >= t->stream.limit &&
	    runtime_tool_gone && runtime_tool_gone())
		goto out;
	/* Read once the clock is set up (the first call of a process starts
	 * it), before the calls a handler left aside are written. */
	uint64_t tick = trace_clock_tick();
	if (t->phase == THREAD_NEW) {
		uint32_t busy = runtime_internal_begin(t);
		int rc = runtime_thread_begin(t);
		runtime_internal_end(t, busy);
		if (rc < 0)
			goto out;
	}
	if (seen != state)
		notice_new_generation(t, seen);
	seen = state;
	runtime_deferred_flush(t);
	uint32_t depth = t->stream.depth;
	const struct runtime_args_pending *args = t->args ? runtime_args_pending : NULL;
	uint32_t values = kind == HOOK_ENTER && args ? args->pending_for(t, fn) : 0;
	if (values) { /* the enter and its arguments go in one window */
		sp = t->args->slot;
		trace_stream_make_room(&t->stream, values + EV_MAX_BYTES, tick);
	}
	counted = runtime_record_event(t, fn, kind, tick, sp);
	if (values && entered(t, depth)) /* written, not held back */
		args->write(t);
	runtime_deferred_flush(t); /* a handler may have come meanwhile */
	update_fast_depth(t);
	if (t->dropped)
		runtime_report_dropped(t);
	if (unlikely(runtime_session.broken))
		runtime_stop_for_good(trace_session_broken_reason(&runtime_session));
out:
	if (t->args && runtime_args_pending)
		runtime_args_pending->drop(t);
	SIGNAL_FENCE();
	t->gen = seen;
	errno = saved_errno;
	return counted;
}

int runtime_hook_event_checked(struct thread_state *t, uint64_t fn, enum hook_kind kind,
			       uint64_t sp)
{
	return hook_slow(t, fn, kind, sp);
}

/* The hooks' paths, for the in-process engine's stubs (patch_engine.c);
 * whether an enter was counted. */
int runtime_hook_event(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t sp)
{
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (likely(state != 0) &&
	    (kind == HOOK_ENTER ? hook_fast_enter(t, state, fn, sp) : hook_fast_exit(t, state, fn)))
		return kind == HOOK_ENTER;
	return hook_slow(t, fn, kind, sp);
}

/* The fast paths below call nothing but hook_slow, and that as their last
 * act, so that they need no stack frame. */
RUNTIME_EXPORT __attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *fn, void *call_site)
{
	(void)call_site;
	struct thread_state *t = &runtime_thread;
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (!hook_fast_enter(t, state, (uint64_t)fn, HOOKED_CALL_SP()) && state != 0)
		hook_slow(t, (uint64_t)fn, HOOK_ENTER, HOOKED_CALL_SP());
}

RUNTIME_EXPORT __attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn,
										    void *call_site)
{
	(void)call_site;
	struct thread_state *t = &runtime_thread;
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (!hook_fast_exit(t, state, (uint64_t)fn) && state != 0)
		hook_slow(t, (uint64_t)fn, HOOK_EXIT, 0);
}
