/*
 * replay_text.c - the function graph, like `uftrace replay`:
 *
 *   # DURATION     TID     FUNCTION
 *               [  4242] | main() {
 *      1.234 us [  4242] |   parse();
 *      9.876 us [  4242] | }   (the name of the call that ends here)
 *
 * A call is printed as a leaf (`f();` with its duration) when no shown call
 * happens inside it; that takes one event of look-ahead, kept in `pending`.
 * Recorded arguments and return values are shown as uftrace shows them:
 * `add(a=40, b=2) = 42;`, or `main(argc=1) {` ... `} = 0; (comment) main`.
 *
 * Calls of other kinds are marked apart from the program's own: a library
 * call by its library, as `uftrace replay --libname` does
 * (`read@libc.so.6(fd=3, buf=0x7ffc..., count=64) = 12;`), a system call by
 * `[syscall] ` (`[syscall] openat(...) = 3;`), an off-CPU interval as a
 * C comment line with its duration, "off-CPU: blocked" inside.
 *
 * With max_lines, the graph stops after that many lines (whole lines); the
 * caller asks replay_was_cut() whether anything was left out, to say so.
 */
#include "text_views.h"
#include "call_kind.h"
#include "call_values.h"
#include "view_util.h"
#include "../format/printable.h"

#include <stdlib.h>
#include <string.h>

struct replay {
	FILE *out;
	struct replay_options opt;
	char tid_column[24]; /* "[  4242] " */
	size_t tid_len;
	int have_pending;
	size_t len;
	char buf[1 << 16];
	const struct symbol *pending_sym; /* the enter not printed yet */
	uint32_t pending_depth;
	uint64_t pending_seq;
	const uint8_t *pending_args;
	uint32_t pending_args_len;
	struct view_symtab names;   /* by symbol id: name_info() as a pointer */
	struct view_symtab shown;   /* by symbol id: shown_name() of other kinds */
	struct call_values *values; /* NULL until a call has some */
	struct value_out text;
	uint64_t lines; /* written, counted under max_lines only */
	int full;	/* max_lines written */
	int cut;	/* and something more was left out */
};

static void out_flush(struct replay *rp);

struct replay *replay_new(FILE *out, const struct replay_options *o)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	if (!rp)
		return NULL;
	rp->out = out;
	rp->opt = *o;
	value_out_init_buffer(&rp->text);
	return rp;
}

void replay_free(struct replay *rp)
{
	if (rp) {
		out_flush(rp);
		view_symtab_free(&rp->names, NULL);
		view_symtab_free(&rp->shown, free);
		call_values_free(rp->values);
		value_out_free(&rp->text);
	}
	free(rp);
}

/* The DURATION column: 10 characters, "  1.234 us", "     56 ns". */
static char *put_duration(char *p, uint64_t ns)
{
	static const char *units[] = {" ns", " us", " ms", "  s"};
	uint64_t whole = ns, frac = 0;
	int u = 0;
	while (whole >= 1000 && u < 3) {
		frac = whole % 1000;
		whole /= 1000;
		u++;
	}
	char digits[24];
	int n = 0;
	if (u > 0) {
		digits[n++] = (char)('0' + frac % 10);
		digits[n++] = (char)('0' + frac / 10 % 10);
		digits[n++] = (char)('0' + frac / 100);
		digits[n++] = '.';
	}
	do {
		digits[n++] = (char)('0' + whole % 10);
		whole /= 10;
	} while (whole);
	for (int pad = 7 - n; pad > 0; pad--)
		*p++ = ' ';
	while (n)
		*p++ = digits[--n];
	memcpy(p, units[u], 3);
	return p + 3;
}

/* Output goes through our own buffer: stdio's per-call cost would
 * dominate a replay of millions of calls. */
static void out_flush(struct replay *rp)
{
	fwrite_unlocked(rp->buf, 1, rp->len, rp->out);
	rp->len = 0;
}

/* How much of s[0..n) fits under max_lines (whole lines), counting them. */
static size_t within_bound(struct replay *rp, const char *s, size_t n)
{
	if (rp->full) {
		rp->cut |= n > 0;
		return 0;
	}
	const char *p = s, *end = s + n;
	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p++;
		if (++rp->lines >= rp->opt.max_lines) {
			rp->full = 1;
			rp->cut |= p < end;
			return (size_t)(p - s);
		}
	}
	return n;
}

int replay_was_cut(const struct replay *rp)
{
	return rp->cut;
}

static void out_put(struct replay *rp, const char *s, size_t n)
{
	if (rp->opt.max_lines)
		n = within_bound(rp, s, n);
	while (n > 0) {
		if (rp->len == sizeof(rp->buf))
			out_flush(rp);
		size_t room = sizeof(rp->buf) - rp->len;
		size_t k = n < room ? n : room;
		memcpy(rp->buf + rp->len, s, k);
		rp->len += k;
		s += k;
		n -= k;
	}
}

static void out_str(struct replay *rp, const char *s)
{
	out_put(rp, s, strlen(s));
}

#define NAME_HAS_PARAMS 0x80000000u

/* The name a line shows (view_kind_shown_name): "read@libc.so.6" for a
 * library call, "[syscall] read" for a system call. */
static const char *shown_name(struct replay *rp, const struct symbol *sym)
{
	if (sym->kind == CALL_FUNCTION)
		return sym->name;
	void **slot = view_symtab_slot(&rp->shown, sym->id);
	if (!slot)
		abort();
	if (!*slot) {
		char buf[512];
		if (!(*slot = strdup(view_kind_shown_name(sym, buf, sizeof(buf)))))
			abort();
	}
	return *slot;
}

/* Names are written millions of times: what is needed of them (length + 1,
 * and whether they carry a parameter list) is kept by symbol id. */
static uint32_t name_info(struct replay *rp, const struct symbol *sym)
{
	void **slot = view_symtab_slot(&rp->names, sym->id);
	if (!slot)
		abort();
	if (!*slot)
		*slot =
		    (void *)(uintptr_t)(((uint32_t)strlen(shown_name(rp, sym)) + 1) |
					(sym->kind == CALL_FUNCTION && view_name_params(sym->name)
					     ? NAME_HAS_PARAMS
					     : 0));
	return (uint32_t)(uintptr_t)*slot;
}

/* Writes one line: columns, indentation, then `lead`, the name (its first
 * name_len bytes), `tail`. */
static void put_line_named(struct replay *rp, uint32_t depth, const uint64_t *duration,
			   const char *lead, const char *name, size_t name_len, const char *tail)
{
	char head[64], *p = head;
	if (rp->opt.show_duration) {
		if (duration) {
			p = put_duration(p, *duration);
		} else {
			memset(p, ' ', 10);
			p += 10;
		}
		*p++ = ' ';
	}
	if (rp->opt.show_tid) {
		memcpy(p, rp->tid_column, rp->tid_len);
		p += rp->tid_len;
	}
	*p++ = '|';
	*p++ = ' ';
	out_put(rp, head, (size_t)(p - head));
	static const char spaces[] =
	    "                                                                ";
	for (size_t left = (size_t)depth * 2; left > 0;) {
		size_t n = left < sizeof(spaces) - 1 ? left : sizeof(spaces) - 1;
		out_put(rp, spaces, n);
		left -= n;
	}
	out_str(rp, lead);
	out_put(rp, name, name_len);
	out_str(rp, tail);
}

static void put_line(struct replay *rp, uint32_t depth, const uint64_t *duration, const char *lead,
		     const struct symbol *sym, const char *tail)
{
	if (!sym) { /* a mark's line: lead and tail only */
		put_line_named(rp, depth, duration, lead, "", 0, tail);
		return;
	}
	put_line_named(rp, depth, duration, lead, shown_name(rp, sym),
		       (name_info(rp, sym) & ~NAME_HAS_PARAMS) - 1, tail);
}

/* What follows a name: "() {" for a call with callees, "();" for a leaf;
 * C++ names carry their own parameter list. */
static const char *call_suffix(struct replay *rp, const struct symbol *sym, int leaf)
{

	static const char *suffixes[2][5] = {
	    {"() {\n", "();\n", "(); /* unfinished */\n",
	     "(); /* entered before the kept calls */\n",
	     "(); /* entered before the kept calls, unfinished */\n"},
	    {" {\n", ";\n", "; /* unfinished */\n", "; /* entered before the kept calls */\n",
	     "; /* entered before the kept calls, unfinished */\n"}};
	return suffixes[(name_info(rp, sym) & NAME_HAS_PARAMS) != 0][leaf];
}

/* Which of call_suffix's leaf endings an exit takes: 1 ended, 2
 * unfinished, 3 entered before the kept calls (a ring's), 4 both. */
static int leaf_ending(const struct walk_event *e)
{
	return e->entered_before ? 3 + (e->unfinished != 0) : 1 + (e->unfinished != 0);
}

/* The comment after a closing line's name. */
static const char *close_ending(const struct walk_event *e)
{
	static const char *endings[] = {" */\n", " */ /* unfinished */\n",
					" */ /* entered before the kept calls */\n",
					" */ /* entered before the kept calls, unfinished */\n"};
	return endings[(e->unfinished != 0) + 2 * (e->entered_before != 0)];
}

/* What follows a name when the call has recorded values: "(a=1, s=\"x\")"
 * then " = 42" (a leaf's, when `ret`), then `end`.  A C++ name's own
 * parameter list is left out then (see put_values_line), what follows it
 * (" const") is not. */
static const char *values_suffix(struct replay *rp, const struct symbol *sym, const uint8_t *args,
				 uint32_t args_len, const uint8_t *ret, uint32_t ret_len,
				 const char *end)
{
	struct value_out *o = &rp->text;
	if (!rp->values && !(rp->values = call_values_new()))
		abort();
	value_out_reset(o);
	value_out_text_put(o, "(");
	call_values_args_c(rp->values, o, sym, args, args_len, ret, ret_len);
	value_out_text_put(o, ")");
	if (name_info(rp, sym) & NAME_HAS_PARAMS) /* P::get(int) const */
		value_out_text_put(o, view_name_qualifiers(sym->name));
	if (ret) {
		value_out_text_put(o, " = ");
		call_values_return_c(rp->values, o, sym, ret, ret_len);
	}
	value_out_text_put(o, end);
	return value_out_text(o);
}

/* A call line with its values: the name without a C++ parameter list. */
static void put_values_line(struct replay *rp, uint32_t depth, const uint64_t *duration,
			    const struct symbol *sym, const char *suffix)
{
	uint32_t info = name_info(rp, sym);
	const char *paren = (info & NAME_HAS_PARAMS) ? view_name_params(sym->name) : NULL;
	size_t len = paren ? (size_t)(paren - sym->name) : (info & ~NAME_HAS_PARAMS) - 1;
	put_line_named(rp, depth, duration, "", shown_name(rp, sym), len, suffix);
}

/* An off-CPU interval with nothing inside: a comment, "off-CPU: blocked". */
static void put_offcpu_line(struct replay *rp, const struct walk_event *e)
{
	const char *reason = e->sym->name;
	if (strncmp(reason, "off-cpu:", 8) == 0)
		reason += 8;
	put_line_named(rp, e->depth, &e->duration_ns, "/* off-CPU: ", reason, strlen(reason),
		       e->unfinished ? " (unfinished) */\n" : " */\n");
}

static void flush_pending(struct replay *rp)
{
	if (!rp->have_pending)
		return;
	rp->have_pending = 0;
	if (rp->pending_args) {
		put_values_line(rp, rp->pending_depth, NULL, rp->pending_sym,
				values_suffix(rp, rp->pending_sym, rp->pending_args,
					      rp->pending_args_len, NULL, 0, " {\n"));
		return;
	}
	put_line(rp, rp->pending_depth, NULL, "", rp->pending_sym,
		 call_suffix(rp, rp->pending_sym, 0));
}

static void on_begin_thread(void *ctx, const struct walk_thread *t)
{
	struct replay *rp = ctx;
	char label[256];
	out_flush(rp);
	if (rp->opt.max_lines && rp->full) {
		rp->cut = 1;
		return;
	}
	rp->lines += 3; /* the header below */
	rp->full = rp->opt.max_lines && rp->lines >= rp->opt.max_lines;
	rp->tid_len = (size_t)snprintf(rp->tid_column, sizeof(rp->tid_column), "[%6u] ", t->tid);
	fprintf(rp->out, "#\n# %s%s", view_thread_label(t, label, sizeof(label)),
		t->image && *t->image->command ? ": " : "");
	printable_put(rp->out, t->image ? t->image->command : "");
	fputc('\n', rp->out);
	fprintf(rp->out, "#%s%s FUNCTION\n", rp->opt.show_duration ? "   DURATION " : "",
		rp->opt.show_tid ? "    TID  " : "");
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct replay *rp = ctx;
	flush_pending(rp);
	rp->pending_sym = e->sym;
	rp->pending_depth = e->depth;
	rp->pending_seq = e->seq;
	rp->pending_args = e->args;
	rp->pending_args_len = e->args_len;
	rp->have_pending = 1;
}

static void on_exit_event(void *ctx, const struct walk_event *e)
{
	struct replay *rp = ctx;
	const char *end = e->unfinished ? "; /* unfinished */\n" : ";\n";
	if (rp->have_pending && rp->pending_seq == e->seq) {
		rp->have_pending = 0;
		if (e->sym->kind == CALL_OFFCPU)
			put_offcpu_line(rp, e);
		else if (e->args || e->ret)
			put_values_line(rp, e->depth, &e->duration_ns, e->sym,
					values_suffix(rp, e->sym, e->args, e->args_len, e->ret,
						      e->ret_len, end));
		else
			put_line(rp, e->depth, &e->duration_ns, "", e->sym,
				 call_suffix(rp, e->sym, leaf_ending(e)));
		return;
	}
	flush_pending(rp);
	if (e->ret) {
		if (!rp->values && !(rp->values = call_values_new()))
			abort();
		value_out_reset(&rp->text);
		value_out_text_put(&rp->text, "} = ");
		call_values_return_c(rp->values, &rp->text, e->sym, e->ret, e->ret_len);
		value_out_text_put(&rp->text, "; /* ");
		put_line(rp, e->depth, &e->duration_ns, value_out_text(&rp->text), e->sym,
			 close_ending(e));
		return;
	}
	put_line(rp, e->depth, &e->duration_ns, "} /* ", e->sym, close_ending(e));
}

/* A calltrace_mark(): a comment line "mark: TEXT" where it happened. */
static void on_mark(void *ctx, const struct walk_mark *m)
{
	struct replay *rp = ctx;
	flush_pending(rp);
	put_line(rp, m->depth, NULL, "/* mark: ", NULL, "");
	for (uint32_t i = 0; i < m->len; i++)
		out_put(rp,
			m->text[i] == '\n' ||
				(m->text[i] == '*' && i + 1 < m->len && m->text[i + 1] == '/')
			    ? " "
			    : &m->text[i],
			1);
	out_str(rp, " */\n");
}

void replay_consumer(struct replay *rp, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = rp;
	c->begin_thread = on_begin_thread;
	c->enter = on_call;
	c->exit = on_exit_event;
	c->mark = on_mark;
}
