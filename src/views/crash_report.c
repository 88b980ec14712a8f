/*
 * crash_report.c - what a program was doing when a fatal signal hit it.
 *
 * For every crash record: the signal (and whether it was the stack
 * overflowing), the faulting address, the function and source line the
 * instruction pointer was in, the stack of calls open at that moment (the
 * crashing thread's unfinished calls, innermost first; a run of calls of
 * one function, or a cycle of a few, a recursion, on one line with its
 * count) and the calls that completed just before.  A consumer of the
 * walker's stream like every view: it only remembers, per thread, the
 * unfinished calls and the last few completed ones.
 */
#include "text_views.h"
#include "view_util.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "../utils/array.h"

#define RECENT_CALLS 8
#define MAX_LINES 64 /* lines of the stack shown */
#define MAX_PERIOD 4 /* the longest cycle of calls a recursion is looked for in */
#define MIN_CYCLES 3 /* a cycle of 2 calls or more is one line from that many */

/* An unfinished call: one frame of the stack at the crash. */
struct open_frame {
	const struct symbol *sym;
	uint64_t address, seq;
	int before; /* entered before the kept calls (a ring's) */
};

struct crash_thread {
	const struct trace_crash *crash;
	struct open_frame *stack; /* unfinished calls, innermost first */
	size_t nstack, cap_stack;
	struct walk_event recent[RECENT_CALLS]; /* ring of completed calls */
	size_t nrecent;
};

struct crash_report {
	FILE *out;
	struct trace_reader *reader;
	struct symbol_table *symbols;
	struct crash_thread current;
	int crashed_thread; /* the thread being walked has a crash record */
	size_t reported;
};

struct crash_report *crash_report_new(FILE *out, struct trace_reader *r, struct symbol_table *s)
{
	struct crash_report *cr = calloc(1, sizeof(*cr));
	if (cr) {
		cr->out = out;
		cr->reader = r;
		cr->symbols = s;
	}
	return cr;
}

void crash_report_free(struct crash_report *cr)
{
	if (cr)
		free(cr->current.stack);
	free(cr);
}

static const struct trace_crash *crash_of(const struct trace_reader *r, const struct walk_thread *t)
{
	for (size_t i = 0; i < r->ncrashes; i++)
		if (r->crashes[i].image == t->thread->image && r->crashes[i].tid == t->tid)
			return &r->crashes[i];
	return NULL;
}

static void on_begin_thread(void *ctx, const struct walk_thread *t)
{
	struct crash_report *cr = ctx;
	struct crash_thread *ct = &cr->current;
	ct->crash = crash_of(cr->reader, t);
	ct->nstack = 0;
	ct->nrecent = 0;
}

static void on_exit_event(void *ctx, const struct walk_event *e)
{
	struct crash_thread *ct = &((struct crash_report *)ctx)->current;
	if (!ct->crash)
		return;
	if (!e->unfinished) {
		ct->recent[ct->nrecent++ % RECENT_CALLS] = *e;
		return;
	}
	if (ARRAY_RESERVE(ct->stack, ct->nstack, ct->cap_stack, 256))
		ct->stack[ct->nstack++] =
		    (struct open_frame){e->sym, e->address, e->seq, e->entered_before};
}

static void put_place(FILE *out, const struct symbol *s)
{
	char place[512];
	view_source_place(s, place, sizeof(place));
	fprintf(out, "%s%s%s", s->name, *place ? " at " : "", place);
}

static const struct symbol *symbol_at(struct crash_report *cr, uint32_t image, uint64_t address,
				      uint64_t ns)
{
	const struct trace_module *m = trace_reader_find_module(cr->reader, image, address, ns);
	if (!m)
		return symbol_table_unknown(cr->symbols, address);
	return symbol_table_lookup(cr->symbols, m->path, m->build_id, m->build_id_len,
				   address - m->load_bias, address);
}

static int same_frame(const struct open_frame *a, const struct open_frame *b)
{
	return a->address == b->address && a->sym == b->sym;
}

/* How many times the `period` frames from stack[at] repeat from there on. */
static size_t cycles_at(const struct crash_thread *ct, size_t at, size_t period)
{
	size_t cycles = 1;
	for (size_t next = at + period; next + period <= ct->nstack; next += period) {
		for (size_t j = 0; j < period; j++)
			if (!same_frame(&ct->stack[next + j], &ct->stack[at + j]))
				return cycles;
		cycles++;
	}
	return cycles;
}

/* The recursion that starts at stack[at] and covers the most frames: its
 * period (1: one function) and its cycles (1: none). */
static size_t recursion_at(const struct crash_thread *ct, size_t at, size_t *period)
{
	size_t best = 1;
	*period = 1;
	for (size_t p = 1; p <= MAX_PERIOD && at + 2 * p <= ct->nstack; p++) {
		size_t cycles = cycles_at(ct, at, p);
		if (cycles >= (p == 1 ? 2 : MIN_CYCLES) && cycles * p > best * *period) {
			best = cycles;
			*period = p;
		}
	}
	return best;
}

/* The open calls, innermost first, numbered by frame; a recursion (calls
 * of one function, or a cycle of a few, repeated) on one line with its
 * count, and its other functions on the lines below. */
static void report_stack(FILE *out, const struct crash_thread *ct)
{
	fputs("calls open at the crash (innermost first):\n", out);
	size_t at = 0, lines = 0;
	while (at < ct->nstack && lines < MAX_LINES) {
		size_t period, cycles = recursion_at(ct, at, &period);
		size_t frames = cycles * period;
		const struct open_frame *f = &ct->stack[at];
		fprintf(out, "  #%-3zu ", at);
		put_place(out, f->sym);
		if (frames == 1 && f->before)
			fprintf(out, "  (entered before the kept calls)\n");
		else if (frames == 1)
			fprintf(out, "  (call %llu)\n", (unsigned long long)f->seq);
		else if (period == 1)
			fprintf(out, "  (\u00d7%zu frames, calls %llu to %llu)\n", frames,
				(unsigned long long)f->seq,
				(unsigned long long)ct->stack[at + frames - 1].seq);
		else
			fprintf(out,
				"  (\u00d7%zu cycles of these %zu calls: %zu frames, calls %llu to "
				"%llu)\n",
				cycles, period, frames, (unsigned long long)f->seq,
				(unsigned long long)ct->stack[at + frames - 1].seq);
		for (size_t j = 1; j < period; j++) {
			fprintf(out, "  #%-3zu ", at + j);
			put_place(out, ct->stack[at + j].sym);
			fputc('\n', out);
		}
		at += frames;
		lines += period;
	}
	if (at < ct->nstack)
		fprintf(out, "  ... and %zu more\n", ct->nstack - at);
}

static void report_thread(struct crash_report *cr, const struct walk_thread *t)
{
	const struct crash_thread *ct = &cr->current;
	const struct trace_crash *k = ct->crash;
	char label[256];
	const char *name = strsignal(k->signal);
	fprintf(cr->out, "%s%s crashed: signal %d (%s)%s", cr->reported++ ? "\n" : "",
		view_thread_label(t, label, sizeof(label)), k->signal, name ? name : "?",
		k->flags & CRASH_STACK_OVERFLOW ? ": stack overflow" : "");
	if (k->code > 0) /* raised by the instruction, not sent */
		fprintf(cr->out, ", fault address %#llx", (unsigned long long)k->fault_address);
	if (k->flags & CRASH_STACK_OVERFLOW)
		fputs(" (below the thread's stack)", cr->out);
	fputc('\n', cr->out);
	if (k->nframes) {
		fputs("  in ", cr->out);
		put_place(cr->out, symbol_at(cr, k->image, k->frames[0], k->time_ns));
		if (k->flags & CRASH_IN_TRACER)
			fputs("  (in calltrace's code for its entry)", cr->out);
		fputc('\n', cr->out);
	}
	report_stack(cr->out, ct);
	size_t n = ct->nrecent < RECENT_CALLS ? ct->nrecent : RECENT_CALLS;
	if (n == 1)
		fputs("last call completed before it:\n", cr->out);
	else if (n)
		fprintf(cr->out, "last %zu calls completed before it:\n", n);
	for (size_t i = ct->nrecent - n; i < ct->nrecent; i++) {
		const struct walk_event *e = &ct->recent[i % RECENT_CALLS];
		char dur[32];
		fprintf(cr->out, "  %10s  ", view_duration(e->duration_ns, dur, sizeof(dur)));
		put_place(cr->out, e->sym);
		fputc('\n', cr->out);
	}
}

static void on_end_thread(void *ctx, const struct walk_thread *t)
{
	struct crash_report *cr = ctx;
	if (cr->current.crash)
		report_thread(cr, t);
}

void crash_report_consumer(struct crash_report *cr, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = cr;
	c->begin_thread = on_begin_thread;
	c->exit = on_exit_event;
	c->end_thread = on_end_thread;
}

size_t crash_report_count(const struct crash_report *cr)
{
	return cr->reported;
}
