/*
 * time_filter.c - record-time --time-filter DUR (CALLTRACE_TIME_FILTER):
 * only the calls that lasted at least DUR are written, and the callers of
 * those (so the tree holds), on long runs a small trace.
 *
 * It sits between the engines' checked path (hooks.c: the hooks, the
 * in-process engine, library calls, the calls a signal handler made) and
 * what writes (the record-time filters, the depth limit, the writer): an
 * enter is held back on a per-thread stack of pending calls (function,
 * time, stack pointer).  At an exit, a call that lasted long enough, or
 * whose enter went through already (a callee of it was written), goes
 * through: the enters held back below it first, in order and with their own
 * times, then its exit.  Any other call is dropped whole.  The calls whose
 * enters went through are always the outermost ones (`given`): the writer
 * counts exactly those.
 *
 * The stack holds TIME_FILTER_DEPTH calls.  Deeper calls go through as
 * they come (after the calls held back below them), as if the filter were
 * off, until the depth falls back.  A longjmp (longjmp.c) ends the calls
 * it leaves: those that lasted long enough are written, the others dropped.
 * A crash writes every call held back, so the report shows the whole stack;
 * an exit (exit() inside calls), or a stop of recording, those that lasted
 * long enough.  A fork
 * child takes its parent's calls held back as entered in the parent.  The
 * calls held back by a thread that ends inside them (pthread_exit), or by a
 * process killed by a signal it does not catch, are lost.
 *
 * With the filter on, session.c sends every call to the checked path; with
 * it off, none of this runs and the hooks' fast path is as it was.
 */
#include "time_filter.h"

#include <sys/mman.h>

#define TIME_FILTER_DEPTH 4096

struct pending_call {
	uint64_t address;
	uint64_t tick;
	uint64_t sp;
};

struct pending_stack {
	struct pending_call *calls; /* TIME_FILTER_DEPTH; NULL until first needed */
	uint32_t depth;		    /* calls open (may exceed TIME_FILTER_DEPTH) */
	uint32_t given;		    /* the outermost open calls whose enters went through */
};

static uint64_t min_ticks; /* DUR in the clock's ticks */
static __thread struct pending_stack pending __attribute__((tls_model("initial-exec")));

/* "20ms", "1.5s", "500us", "100" (ns); 0 when it is none of these. */
static uint64_t parse_ns(const char *s)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	if (*s < '0' || *s > '9')
		return 0;
	for (; *s >= '0' && *s <= '9'; s++)
		whole = whole * 10 + (uint64_t)(*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9' && scale < 1000000000u; s++) {
			frac = frac * 10 + (uint64_t)(*s - '0');
			scale *= 10;
		}
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"", 1}, {"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		const char *u = units[i].unit, *p = s;
		while (*u && *u == *p)
			u++, p++;
		if (!*u && !*p)
			return whole * units[i].ns + frac * units[i].ns / scale;
	}
	return 0;
}

static const struct runtime_time_filter lent = {
    runtime_time_filter_event, runtime_time_filter_flush, runtime_time_filter_reset,
    runtime_time_filter_jump_stays_inside, runtime_time_filter_unwind};

void runtime_time_filter_init(void)
{
	const char *v = runtime_getenv("CALLTRACE_TIME_FILTER");
	runtime_time_filter = &lent;
	runtime_time_filter_on = 0;
	if (!v || !*v)
		return;
	uint64_t ns = parse_ns(v);
	if (ns == 0 || !runtime_session.header) {
		runtime_say("bad CALLTRACE_TIME_FILTER '%s' (e.g. 500us, 20ms, 1s); every call is "
			    "recorded",
			    v);
		return;
	}
	uint64_t hz = runtime_session.header->tick_hz;
	min_ticks = (uint64_t)((unsigned __int128)ns * hz / 1000000000u);
	runtime_time_filter_on = 1;
}

static struct pending_call *stack_calls(void)
{
	if (!pending.calls) {
		void *m = mmap(NULL, TIME_FILTER_DEPTH * sizeof(struct pending_call),
			       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED)
			pending.calls = m;
	}
	return pending.calls;
}

/* The enters held back up to depth `upto` (exclusive) go through. */
static void give_upto(struct thread_state *t, uint32_t upto)
{
	for (; pending.given < upto; pending.given++) {
		const struct pending_call *c = &pending.calls[pending.given];
		runtime_record_now(t, c->address, HOOK_ENTER, c->tick, c->sp);
	}
}

/* A call dropped leaves nothing that looks like the exit just written (an
 * earlier call of the same function at that depth): a return value is
 * written only after its own exit (args_capture.c, libcall_record.c). */
static void forget_closed_entry(struct thread_state *t)
{
	struct trace_stream *st = &t->stream;
	if (st->depth < st->open_cap)
		st->open_calls[st->depth].sp = 0;
}

static int enter(struct thread_state *t, uint64_t fn, uint64_t tick, uint64_t sp)
{
	if (pending.depth >= TIME_FILTER_DEPTH || !stack_calls()) {
		/* Deeper than the stack: through at once, as without the filter. */
		if (pending.calls)
			give_upto(t, pending.depth < TIME_FILTER_DEPTH ? pending.depth
								       : TIME_FILTER_DEPTH);
		pending.given = ++pending.depth;
		return runtime_record_now(t, fn, HOOK_ENTER, tick, sp);
	}
	pending.calls[pending.depth++] = (struct pending_call){fn, tick, sp};
	return 1;
}

/* The innermost open call of `fn`, or -1; the calls above it were left
 * (a jump the runtime did not see). */
static int64_t find_open(uint64_t fn)
{
	for (uint32_t i = pending.depth; i-- > 0;)
		if (pending.calls[i].address == fn)
			return i;
	return -1;
}

static void exit_call(struct thread_state *t, uint64_t fn, uint64_t tick)
{
	if (pending.depth == 0 || pending.depth > TIME_FILTER_DEPTH || !pending.calls) {
		/* Entered before recording, or deeper than the stack. */
		if (pending.depth) {
			pending.depth--;
			pending.given = pending.depth;
		}
		runtime_record_now(t, fn, HOOK_EXIT, tick, 0);
		return;
	}
	int64_t top = find_open(fn);
	if (top < 0) { /* not a call it holds: the writer decides */
		give_upto(t, pending.depth);
		runtime_record_now(t, fn, HOOK_EXIT, tick, 0);
		pending.depth = pending.given =
		    t->stream.depth < pending.depth ? t->stream.depth : pending.depth;
		return;
	}
	const struct pending_call *c = &pending.calls[top];
	pending.depth = (uint32_t)top; /* the calls above it ended with it */
	if ((uint32_t)top < pending.given || tick - c->tick >= min_ticks) {
		give_upto(t, (uint32_t)top + 1);
		runtime_record_now(t, fn, HOOK_EXIT, tick, 0);
		pending.given = (uint32_t)top;
		return;
	}
	forget_closed_entry(t);
}

int runtime_time_filter_event(struct thread_state *t, uint64_t fn, enum hook_kind kind,
			      uint64_t tick, uint64_t sp)
{
	if (kind == HOOK_ENTER)
		return enter(t, fn, tick, sp);
	exit_call(t, fn, tick);
	return 0;
}

void runtime_time_filter_reset(struct thread_state *t)
{
	(void)t;
	pending.depth = pending.given = 0;
}

void runtime_time_filter_flush(struct thread_state *t, int all, uint64_t tick)
{
	if (!runtime_time_filter_on || !pending.calls)
		return;
	uint32_t depth = pending.depth < TIME_FILTER_DEPTH ? pending.depth : TIME_FILTER_DEPTH;
	uint32_t upto = pending.given;
	for (uint32_t i = upto; i < depth; i++)
		if (all || tick - pending.calls[i].tick >= min_ticks)
			upto = i + 1;
	give_upto(t, upto);
}

/* How many open calls a jump to `sp` leaves open: as the writer counts
 * them (trace_stream_calls_kept). */
static uint32_t calls_kept(uint64_t sp)
{
	uint32_t keep = pending.depth;
	while (keep > 0 && pending.calls[keep - 1].sp && pending.calls[keep - 1].sp < sp)
		keep--;
	return keep;
}

int runtime_time_filter_jump_stays_inside(uint64_t sp)
{
	if (!runtime_time_filter_on || !pending.calls || pending.depth > TIME_FILTER_DEPTH ||
	    pending.depth == pending.given)
		return 1;
	return calls_kept(sp) == pending.depth;
}

void runtime_time_filter_unwind(struct thread_state *t, uint64_t sp, uint64_t tick)
{
	if (!runtime_time_filter_on || !pending.calls || pending.depth > TIME_FILTER_DEPTH)
		return;
	uint32_t keep = calls_kept(sp);
	/* The calls left that lasted long enough are the outer ones. */
	uint32_t upto = pending.given;
	for (uint32_t i = upto > keep ? upto : keep; i < pending.depth; i++)
		if (tick - pending.calls[i].tick >= min_ticks)
			upto = i + 1;
	give_upto(t, upto);
	pending.depth = keep;
	if (pending.given > keep)
		pending.given = keep;
}

void runtime_time_filter_fork_child(struct thread_state *t)
{
	if (!runtime_time_filter_on || !pending.calls)
		return;
	struct trace_stream *st = &t->stream;
	uint32_t depth = pending.depth < TIME_FILTER_DEPTH ? pending.depth : TIME_FILTER_DEPTH;
	for (; pending.given < depth; pending.given++) {
		const struct pending_call *c = &pending.calls[pending.given];
		trace_stream_reserve_depth(st, st->depth);
		if (st->depth < st->open_cap)
			st->open_calls[st->depth] = (struct trace_open_call){c->address, c->sp};
		st->depth++;
	}
}
