/*
 * return_trap.c - a traced call's two stops: the entry breakpoint and the
 * return trap, with the thread's shadow stack of swapped return addresses.
 *
 * At entry, [rsp] is the caller's return address: it goes on the shadow
 * stack and the trap's address takes its place.  The function's `ret` then
 * lands on the trap, where %rsp is the entry's %rsp + 8: that finds the
 * frame (frames abandoned by longjmp above it are closed too), the exit is
 * recorded and the thread continues at the real return address.  A tail
 * call finds the trap already at [rsp] and is chained to its caller's
 * frame, so one trap stop closes both.
 *
 * Below the watches (unwind_watch.c closes and unswaps frames through the
 * frames_* functions here) and the event loop; it calls only threads.c
 * (a thread's stream), the breakpoints and what is under them.  Stops at
 * breakpoints that are not traced functions are special_stops.c's.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include "engine.h"
#include "../utils/array.h"

#define SEARCH_DEPTH 64

static int push_frame(struct thread *t, const struct shadow_frame *f)
{
	if (!ARRAY_RESERVE(t->frames, t->depth, t->cap, 64))
		return -1;
	t->frames[t->depth++] = *f;
	return 0;
}

/* A thread's stream (and its THREAD_START) begins with its first event,
 * as with the runtime: threads that call nothing traced are not in the trace. */
/* `rsp` is the call's stack pointer at entry: a longjmp finds the calls
 * it leaves by it (frames_abandon_below). */
static uint32_t max_depth; /* -D; 0: every depth */
static int scope_filter;   /* -F: only the calls inside a matching one */

void frames_set_max_depth(uint32_t depth)
{
	max_depth = depth;
}

void frames_set_scope_filter(int on)
{
	scope_filter = on;
}

/* The marks of a call entered now by `bp`: whether it is in -F's scope,
 * whether it is written (-F, then -D counted on the calls written, as the
 * runtime counts them) and its level. */
static void mark_frame(const struct thread *t, const struct breakpoint *bp, struct shadow_frame *f)
{
	const struct shadow_frame *up = t->depth ? &t->frames[t->depth - 1] : NULL;
	uint32_t below = up ? up->level : 0;
	f->in_scope = !scope_filter || bp->scope || (up && up->in_scope);
	f->shown = f->in_scope && (max_depth == 0 || below < max_depth);
	f->level = below + f->shown;
}

static void record_enter(struct thread *t, const struct breakpoint *bp, uint64_t tick,
			 const struct user_regs_struct *r, const struct shadow_frame *f)
{
	if (!f->shown)
		return;
	if (!t->has_stream)
		thread_start_stream(t);
	if (!t->has_stream)
		return;
	if (bp->values) /* the enter and its arguments go in one window */
		trace_stream_make_room(&t->stream, TRACE_VALUES_MAX, tick);
	trace_stream_enter(&t->stream, bp->function, tick, r->rsp);
	if (bp->values)
		capture_arguments(t, bp->values, r);
}

static void record_exit(struct thread *t, const struct shadow_frame *f, uint64_t tick)
{
	uint64_t fn = f->function;
	if (!f->shown)
		return;
	if (!t->has_stream)
		thread_start_stream(t);
	if (t->has_stream)
		trace_stream_exit(&t->stream, fn, tick);
}

static void set_rip(struct thread *t, uint64_t rip)
{
	ptrace(PTRACE_POKEUSER, t->tid, offsetof(struct user_regs_struct, rip), rip);
}

/* Emulated pushes and the trap, written in one go: [rsp - 8n, rsp + 8). */
static void write_stack(struct thread *t, uint64_t entry_rsp, const uint64_t *pushed, int n,
			int with_trap)
{
	uint64_t words[PLAN_MAX_PUSHES + 1];
	memcpy(words, pushed, 8 * (size_t)n);
	words[n] = t->proc->trap;
	size_t len = 8 * (size_t)n + (with_trap ? 8 : 0);
	if (len)
		mem_write(t->proc, entry_rsp - 8 * (uint64_t)n, words, len);
}

/* A jump entry: the slot loaded the return address into %r11 and swaps it
 * for the trap itself once resumed. */
static void jump_entry(struct engine *e, struct thread *t, const struct breakpoint *bp,
		       const struct user_regs_struct *r)
{
	uint64_t tick = trace_clock_tick();
	struct shadow_frame f = {bp->function, r->r11, r->rsp, 0, 0, bp->values, 0, 0, 0};
	e->calls++;
	if (t->unwinding)
		frames_close_below(t, r->rsp, tick);
	mark_frame(t, bp, &f);
	record_enter(t, bp, tick, r, &f);
	f.chained = is_trap(t->proc, f.ret) && t->depth > 0 && t->frames[t->depth - 1].rsp == f.rsp;
	push_frame(t, &f);
}

void entry_hit(struct engine *e, struct thread *t, struct breakpoint *bp,
	       struct user_regs_struct *r)
{
	uint64_t ret;
	if (bp->plan.kind == PLAN_JUMP) {
		jump_entry(e, t, bp, r);
		return;
	}
	r->rip = bp->function;
	if (mem_read(t->proc, r->rsp, &ret, sizeof(ret)) < 0)
		ret = 0;
	uint64_t tick = trace_clock_tick();
	e->calls++;
	if (t->unwinding)
		frames_close_below(t, r->rsp, tick);
	struct shadow_frame f = {bp->function, ret, r->rsp, 0, 0, bp->values, 0, 0, 0};
	mark_frame(t, bp, &f);
	record_enter(t, bp, tick, r, &f);
	if (bp->plan.kind == PLAN_RETURN) {
		uint64_t none[PLAN_MAX_PUSHES];
		plan_apply(&bp->plan, r, none); /* the whole function, emulated */
		record_exit(t, &f, tick);
		if (bp->values && f.shown)
			capture_return(t, bp->values, r);
		r->rip = ret;
		r->rsp += 8;
		ptrace(PTRACE_SETREGS, t->tid, 0, r);
		return;
	}
	f.chained = is_trap(t->proc, ret) && t->depth > 0 && t->frames[t->depth - 1].rsp == r->rsp;
	if (push_frame(t, &f) < 0) {
		bp_step_untraced(t, bp, r, ret); /* no memory: the call stays open */
		return;
	}
	uint64_t pushed[PLAN_MAX_PUSHES];
	uint64_t entry_rsp = r->rsp;
	int n = plan_apply(&bp->plan, r, pushed);
	write_stack(t, entry_rsp, pushed, n, !f.chained);
	if (bp->plan.kind == PLAN_OUT_OF_LINE)
		set_rip(t, r->rip); /* nothing else changed */
	else
		ptrace(PTRACE_SETREGS, t->tid, 0, r);
}

/* The frame a return to the trap with this %rsp closes; -1 if none. */
static long find_frame(const struct thread *t, uint64_t rsp)
{
	size_t low = t->depth > SEARCH_DEPTH ? t->depth - SEARCH_DEPTH : 0;
	for (size_t i = t->depth; i-- > low;)
		if (t->frames[i].rsp == rsp - 8)
			return (long)i;
	/* ret $n, or a lost frame: the topmost frames below %rsp. */
	long i = (long)t->depth - 1;
	if (i < 0 || t->frames[i].rsp >= rsp)
		return -1;
	while (i > 0 && t->frames[i - 1].rsp < rsp && t->frames[i - 1].rsp <= t->frames[i].rsp)
		i--;
	return i;
}

/* Closes frames from the top down to `i` and its tail-call chain; returns
 * the real return address.  The call that returned (`i`) and the calls
 * that tail-called it get its return value from `r`. */
static uint64_t close_frames(struct thread *t, long i, uint64_t tick,
			     const struct user_regs_struct *r)
{
	long returned = i;
	while (i > 0 && t->frames[i].chained && t->frames[i - 1].rsp == t->frames[i].rsp)
		i--;
	for (size_t j = t->depth; j-- > (size_t)i;) {
		record_exit(t, &t->frames[j], tick);
		if ((long)j <= returned && t->frames[j].values && r && t->frames[j].shown)
			capture_return(t, t->frames[j].values, r);
	}
	t->depth = (size_t)i;
	return t->frames[i].ret;
}

void return_hit(struct engine *e, struct thread *t, struct user_regs_struct *r)
{
	long i = find_frame(t, r->rsp);
	(void)e;
	if (i < 0) {
		engine_error("thread %d returned to the trap with no call open: cannot continue it",
			     (int)t->tid);
		set_rip(t, 0);
		return;
	}
	r->rip = close_frames(t, i, trace_clock_tick(), r);
	set_rip(t, r->rip);
}

/* A thread stopped inside an out-of-line slot goes back to the original
 * where the slot matches it: at the start of a displaced instruction or at
 * the jump back.  Inside what stands for one (a call's pushes) it stays:
 * the slot stays mapped. */
static int leave_slot(struct process *p, struct user_regs_struct *r)
{
	for (size_t i = 0; i < p->bps.size; i++) {
		const struct breakpoint *bp = &p->bps.slots[i];
		if (bp->address != 0 && bp->plan.kind == PLAN_JUMP && r->rip >= bp->slot &&
		    r->rip < bp->slot + JUMP_SLOT_SIZE) {
			int r11_saved;
			r->rip =
			    jump_rip_back(&bp->jump, bp->function, bp->slot, r->rip, &r11_saved);
			uint64_t r11;
			if (r11_saved && mem_read(p, r->rsp - 8, &r11, 8) == 0)
				r->r11 = r11;
			return 1;
		}
		if (bp->address == 0 || bp->plan.kind != PLAN_OUT_OF_LINE)
			continue;
		if (r->rip == bp->plan.resume) {
			r->rip = bp->function;
			return 1;
		}
		if (r->rip == bp->plan.resume + bp->plan.ool_back) {
			r->rip = bp->function + bp->plan.ool_len;
			return 1;
		}
	}
	return 0;
}

void return_restore(struct engine *e, struct thread *t)
{
	struct process *p = t->proc;
	struct user_regs_struct r;
	(void)e;
	if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) == 0) {
		int changed = 0;
		if (is_trap(p, r.rip)) {
			long i = find_frame(t, r.rsp);
			if (i >= 0) {
				r.rip = close_frames(t, i, trace_clock_tick(), &r);
				changed = 1;
			}
		}
		changed |= leave_slot(p, &r);
		if (changed)
			ptrace(PTRACE_SETREGS, t->tid, 0, &r);
	}
	for (size_t j = t->depth; j-- > 0;) {
		const struct shadow_frame *f = &t->frames[j];
		uint64_t now;
		if (f->chained || mem_read(p, f->rsp, &now, 8) < 0 || !is_trap(p, now))
			continue;
		mem_write(p, f->rsp, &f->ret, 8);
	}
	t->depth = 0;
}

void frames_unswap(struct thread *t)
{
	struct process *p = t->proc;
	for (size_t j = t->depth; j-- > 0;) {
		struct shadow_frame *f = &t->frames[j];
		uint64_t now;
		if (f->chained || f->unswapped || mem_read(p, f->rsp, &now, 8) < 0 ||
		    !is_trap(p, now))
			continue;
		mem_write(p, f->rsp, &f->ret, 8);
		f->unswapped = 1;
	}
}

/* Frames whose return address lies at or below `rsp` are gone (unwound). */
void frames_close_below(struct thread *t, uint64_t rsp, uint64_t tick)
{
	while (t->depth > 0 && t->frames[t->depth - 1].rsp <= rsp) {
		t->depth--;
		record_exit(t, &t->frames[t->depth], tick);
	}
}

void frames_abandon_below(struct thread *t, uint64_t target, uint64_t tick)
{
	size_t keep = t->depth;
	while (keep > 0 && t->frames[keep - 1].rsp < target)
		keep--;
	if (keep == t->depth)
		return;
	t->depth = keep;
	if (t->has_stream)
		trace_stream_unwind_to(&t->stream, target, tick, UINT32_MAX);
}

void frames_reswap(struct thread *t)
{
	struct process *p = t->proc;
	for (size_t j = 0; j < t->depth; j++) {
		struct shadow_frame *f = &t->frames[j];
		uint64_t now;
		if (!f->unswapped || mem_read(p, f->rsp, &now, 8) < 0)
			continue;
		if (now == f->ret)
			mem_write(p, f->rsp, &p->trap, 8);
		f->unswapped = 0;
	}
}

int shadow_copy(struct thread *dst, const struct thread *src)
{
	if (src->depth == 0)
		return 0;
	dst->frames = malloc(src->cap * sizeof(*dst->frames));
	if (!dst->frames)
		return -1;
	memcpy(dst->frames, src->frames, src->depth * sizeof(*dst->frames));
	dst->depth = src->depth;
	dst->cap = src->cap;
	return 0;
}
