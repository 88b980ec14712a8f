/*
 * longjmp.c - the calls a longjmp leaves end at the jump.
 *
 * A longjmp returns to a frame far up the stack without running the exit
 * hooks of the frames it drops: without help, the calls made after it would
 * nest under the dropped ones until an outer function returned.  So
 * longjmp, _longjmp, siglongjmp and __longjmp_chk (what _FORTIFY_SOURCE
 * compiles longjmp to) are wrapped: before jumping, the thread's open calls
 * whose frames lie below the jump's target end there, unfinished (an
 * EV_UNWIND event).  The hooks remember a stack pointer for every open call;
 * the target's is in the jmp_buf (arch/<cpu>/arch.h: arch_jmpbuf_sp).
 */
#include "../runtime.h"
#include "../../arch/arch.h"

#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdlib.h>

typedef void (*jump_fn)(struct __jmp_buf_tag *, int);

enum jump_kind { JUMP_LONGJMP, JUMP_UNDERSCORE, JUMP_SIG, JUMP_CHK, JUMP_KINDS };
static const char *const jump_names[JUMP_KINDS] = {"longjmp", "_longjmp", "siglongjmp",
						   "__longjmp_chk"};
static jump_fn real_jumps[JUMP_KINDS];

/* Looked up at start-up: dlsym is not safe in a signal handler, where
 * siglongjmp is often called. */
void runtime_longjmp_init(void)
{
	for (int k = 0; k < JUMP_KINDS; k++)
		if (!real_jumps[k])
			real_jumps[k] = (jump_fn)dlsym(RTLD_NEXT, jump_names[k]);
}

/* The stack pointer a jump to `env` lands with, or 0 where unknown. */
static uint64_t jump_target_sp(const struct __jmp_buf_tag *env)
{
	return arch_jmpbuf_sp(env);
}

/* The jump leaves the slow path of one of this thread's hooks half done
 * (the signal handler it jumps out of had interrupted it; never inside a
 * refill, which blocks signals).  Its window is closed at its last whole
 * event, so a definition half made cannot leak into the next one.  0 when
 * the thread can go on recording. */
static int mend_interrupted_slow_path(struct thread_state *t, uint32_t state)
{
	/* The time filter holds calls back before any is written: no window
	 * yet is no half-written event. */
	int no_window = runtime_time_filter_on && !t->stream.chunk;
	if (state != 0 && (no_window || trace_stream_close_interrupted(&t->stream) == 0)) {
		t->gen = state;
		return 0;
	}
	t->gen = RUNTIME_GEN_STALE; /* its next hook ends the open calls */
	return -1;
}

static void end_abandoned_calls(const struct __jmp_buf_tag *env)
{
	struct thread_state *t = &runtime_thread;
	struct trace_stream *st = &t->stream;
	uint64_t here = (uint64_t)__builtin_frame_address(0);
	uint64_t target = jump_target_sp(env);
	if (target <= here || target - here > (1ull << 30))
		return; /* not a stack pointer above us: unknown mangling */
	if (runtime_patch_unwind)
		runtime_patch_unwind(target);
	if (trace_stream_jump_stays_inside(st, target) &&
	    (!runtime_time_filter_on || runtime_time_filter->jump_stays_inside(target)))
		return; /* it leaves no call */
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (t->gen == RUNTIME_GEN_BUSY) {
		/* Out of a handler that interrupted a hook: the calls the
		 * handler made are kept aside, and are written below, before
		 * the jump ends those it leaves. */
		t->deferred_skip = 0;
		if (mend_interrupted_slow_path(t, state) < 0) {
			runtime_deferred_discard(t);
			return;
		}
	}
	if (state == 0 || t->gen != state)
		return; /* not recording */
	int saved_errno = errno;
	t->gen = RUNTIME_GEN_BUSY;
	/* A hook's fast path cut off half-way leaves the window whole: its
	 * last event may or may not be written, and the UNWIND names the
	 * calls that stay, which that event cannot be.  Calls a handler
	 * made earlier and left aside go in first. */
	runtime_deferred_flush(t);
	uint64_t tick = trace_clock_tick();
	if (runtime_time_filter) /* the calls it held back */
		runtime_time_filter->unwind(t, target, tick);
	trace_stream_unwind_to(st, target, tick, runtime_max_depth);
	t->gen = state;
	errno = saved_errno;
}

static __attribute__((noreturn)) void jump(enum jump_kind kind, struct __jmp_buf_tag *env, int val)
{
	end_abandoned_calls(env);
	if (!real_jumps[kind])
		runtime_longjmp_init(); /* a jump before the runtime started */
	if (!real_jumps[kind])
		abort(); /* no libc to jump with: nothing sensible is left */
	real_jumps[kind](env, val);
	__builtin_unreachable();
}

RUNTIME_EXPORT void longjmp(struct __jmp_buf_tag env[1], int val)
{
	jump(JUMP_LONGJMP, env, val);
}

RUNTIME_EXPORT void _longjmp(struct __jmp_buf_tag env[1], int val)
{
	jump(JUMP_UNDERSCORE, env, val);
}

RUNTIME_EXPORT void siglongjmp(struct __jmp_buf_tag env[1], int val)
{
	jump(JUMP_SIG, env, val);
}

RUNTIME_EXPORT __attribute__((noreturn)) void __longjmp_chk(struct __jmp_buf_tag env[1], int val);
RUNTIME_EXPORT void __longjmp_chk(struct __jmp_buf_tag env[1], int val)
{
	jump(JUMP_CHK, env, val);
}
