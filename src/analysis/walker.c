/*
 * walker.c - turn each thread's enter/exit events into a filtered call-tree
 * stream (see walker.h).
 *
 * One stack of frames per thread.  A frame is "eligible" when the filters
 * (-F, -N, -D) would show it; with a time filter (-t) an eligible frame is
 * first "pending" and is handed to the consumer only once it has lasted
 * long enough (its children cannot be longer than it, so order is kept),
 * or dropped when it ends sooner.  --from holds a frame that began before
 * the range the same way, until the walk reaches --from (it overlaps the
 * range) or it ends (it does not); a frame that began after --to is not
 * eligible, nor is anything it calls.
 *
 * A call's symbol follows the kind its function id's address carries
 * (format/trace_format.h, "Kinds of calls"): a function of the program, a
 * library call (named by the relocation of the GOT slot it went through,
 * provided by the first module of the process that defines that name), a
 * system call, an off-CPU interval.  --kind hides calls of the kinds not
 * asked for the way -N does.
 */
#include "walker.h"
#include "../patch/name_match.h"
#include "../utils/array.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct frame {
	uint64_t address;
	const struct symbol *sym;
	uint64_t start_ns, seq, child_ns;
	const uint8_t *args, *ret; /* into the mapped trace */
	uint32_t args_len, ret_len;
	uint32_t depth; /* eligible ancestors below it */
	int32_t parent; /* index of the nearest eligible ancestor, -1 */
	uint8_t eligible, emitted, in_scope, before;
};

struct thread_walk {
	struct trace_reader *reader;
	struct symbol_table *symbols;
	const struct walk_filters *filters;
	const struct walk_consumer *consumer;
	struct walk_stats *stats;
	struct walk_thread info;
	struct trace_cursor cursor;
	struct frame *stack;
	size_t depth, cap;
	size_t first_pending; /* lowest frame that may still be pending */
	uint64_t seq, last_ns;
	const struct symbol **syms; /* this window's fid -> symbol */
	size_t nsyms;
	uint32_t syms_serial;
};

enum { FILTER_UNKNOWN = 0, FILTER_NONE = 1, FILTER_ONLY = 2, FILTER_HIDE = 4 };

/* A plain -F or -N name (name_match.h): it names a function whole, under
 * any of the names the views show for it. */
static int plain_name_matches(const char *text, const struct symbol *sym)
{
	return name_pattern_names(text, sym->name) ||
	       (sym->short_name && name_pattern_names(text, sym->short_name)) ||
	       (sym->full_name && name_pattern_names(text, sym->full_name)) ||
	       (sym->mangled && name_pattern_names(text, sym->mangled)) ||
	       symbol_name_is(sym, text);
}

/* -F's or -N's match (walk_filters): a plain name as record's filters take
 * it (name_match.c), else the regex anywhere in one of the names. */
static int name_matches(const regex_t *re, const char *text, const struct symbol *sym)
{
	if (name_pattern_is_plain(text))
		return plain_name_matches(text, sym);
	return regexec(re, sym->name, 0, NULL, 0) == 0 ||
	       (sym->short_name && regexec(re, sym->short_name, 0, NULL, 0) == 0) ||
	       (sym->full_name && regexec(re, sym->full_name, 0, NULL, 0) == 0) ||
	       (sym->mangled && regexec(re, sym->mangled, 0, NULL, 0) == 0) ||
	       (text && symbol_name_is(sym, text));
}

static int filter_flags(const struct walk_filters *f, const struct symbol *sym)
{
	int *state = (int *)&sym->filter_state; /* a cache the table leaves to us */
	if (*state == FILTER_UNKNOWN) {
		int flags = FILTER_NONE;
		if (f->only && name_matches(f->only, f->only_text, sym))
			flags |= FILTER_ONLY;
		if (f->hide && name_matches(f->hide, f->hide_text, sym))
			flags |= FILTER_HIDE;
		/* --kind hides the calls of other kinds as -N does: what they
		 * call (a library call's system calls) stays. */
		if (f->kinds && !(f->kinds & (1u << sym->kind)))
			flags |= FILTER_HIDE;
		*state = flags;
	}
	return *state;
}

/* Symbols are read only from regular files (or paths that are not there,
 * which the symbol table reports): a trace naming a FIFO or a device as a
 * module must not block the walk or feed it.  Checked once a module. */
static int module_file_ok(const struct trace_module *m)
{
	int *state = (int *)&m->file_state; /* a cache the reader leaves to us */
	if (*state == 0) {
		struct stat st;
		*state = stat(m->path, &st) == 0 && !S_ISREG(st.st_mode) ? -1 : 1;
	}
	return *state > 0;
}

/* The symbol of the program's own function at runtime address `address`. */
static const struct symbol *function_symbol(struct thread_walk *w, uint64_t address, uint64_t ns)
{
	const struct trace_module *m =
	    trace_reader_find_module(w->reader, w->info.thread->image, address, ns);
	if (m && module_file_ok(m))
		return symbol_table_lookup(w->symbols, m->path, m->build_id, m->build_id_len,
					   address - m->load_bias, address);
	return symbol_table_unknown(w->symbols, address);
}

/* calltrace's own runtime, preloaded: it defines dlopen, dlsym, dlclose and
 * the like only to see them pass, so a library call of one is shown in the
 * library the program meant, and in the runtime only when no other
 * defines it. */
static int is_runtime(const struct trace_module *m)
{
	const char *base = strrchr(m->path, '/');
	return strncmp(base ? base + 1 : m->path, "libcalltrace.", 13) == 0;
}

static const struct trace_module *provider_among(struct thread_walk *w, const char *name,
						 uint64_t ns, int runtime_too)
{
	const struct trace_image *im = w->info.image;
	const struct trace_module *later = NULL;
	for (size_t i = 0; im && i < im->nmodules; i++) {
		const struct trace_module *m = &im->modules[i];
		if (!runtime_too && is_runtime(m))
			continue;
		int now = m->load_ns <= ns && ns <= m->unload_ns;
		if (!now && (m->load_ns <= ns || (later && later->load_ns <= m->load_ns)))
			continue;
		if (!module_file_ok(m) ||
		    !symbol_table_defines(w->symbols, m->path, m->build_id, m->build_id_len, name))
			continue;
		if (now)
			return m;
		later = m;
	}
	return later;
}

/* The module that provides the library function `name` at time `ns`: the
 * first one loaded in the image (in load order) that defines it, as the
 * dynamic linker binds it; else, as trace_reader_find_module does, the
 * first recorded later that defines it (a module recorded only once its
 * code first ran); NULL when none does. */
static const struct trace_module *provider(struct thread_walk *w, const char *name, uint64_t ns)
{
	const struct trace_module *m = provider_among(w, name, ns, 0);
	return m ? m : provider_among(w, name, ns, 1);
}

/* A library call: through the GOT slot at `where` (its relocation names
 * the function), or to `where` itself (a pointer dlsym returned: named as
 * the module exports it, else as the function at that address). */
static const struct symbol *library_symbol(struct thread_walk *w, uint64_t where, uint64_t ns)
{
	const struct trace_module *m =
	    trace_reader_find_module(w->reader, w->info.thread->image, where, ns);
	const char *name = NULL, *version = NULL;
	if (m && module_file_ok(m))
		name = symbol_table_got_slot(w->symbols, m->path, m->build_id, m->build_id_len,
					     where - m->load_bias, &version);
	if (name) {
		const struct trace_module *p = provider(w, name, ns);
		return symbol_table_library(w->symbols, name, version, p ? p->path : NULL, where);
	}
	const struct symbol *own = function_symbol(w, where, ns);
	const char *exported = NULL;
	if (m && module_file_ok(m))
		exported = symbol_table_exported_at(w->symbols, m->path, m->build_id,
						    m->build_id_len, where - m->load_bias);
	return symbol_table_library(w->symbols, exported ? exported : own->name, NULL, own->module,
				    where);
}

static const struct symbol *symbol_of(struct thread_walk *w, uint64_t address, uint64_t ns)
{
	uint64_t where = TRACE_CALL_WHERE(address);
	switch (TRACE_CALL_KIND(address)) {
	case CALL_FUNCTION:
		return function_symbol(w, address, ns);
	case CALL_LIBRARY:
		return library_symbol(w, where, ns);
	case CALL_SYSCALL:
	case CALL_OFFCPU:
	case CALL_KERNEL:
		return symbol_table_kernel_side(w->symbols, TRACE_CALL_KIND(address),
						w->reader->header.machine, where);
	}
	/* A kind this version does not know: shown by its raw address. */
	return symbol_table_unknown(w->symbols, address);
}

static const struct symbol *resolve(struct thread_walk *w, const struct trace_event *ev)
{
	struct trace_cursor *c = &w->cursor;
	if (w->syms_serial != c->window_serial) {
		if (w->nsyms)
			memset(w->syms, 0, w->nsyms * sizeof(*w->syms));
		w->syms_serial = c->window_serial;
	}
	if (ev->fid >= w->nsyms) {
		size_t n = c->cap_dict > ev->fid ? c->cap_dict : ev->fid + 1;
		w->syms = realloc(w->syms, n * sizeof(*w->syms));
		if (!w->syms)
			abort();
		memset(w->syms + w->nsyms, 0, (n - w->nsyms) * sizeof(*w->syms));
		w->nsyms = n;
	}
	const struct symbol *s = w->syms[ev->fid];
	if (!s)
		s = w->syms[ev->fid] = symbol_of(w, ev->address, ev->time_ns);
	return s;
}

static void fill_event(struct thread_walk *w, const struct frame *f, struct walk_event *e,
		       enum walk_kind kind)
{
	e->kind = kind;
	e->thread = &w->info;
	e->sym = f->sym;
	e->call_kind = f->sym->kind;
	e->address = TRACE_CALL_WHERE(f->address);
	e->depth = f->depth;
	e->seq = f->seq;
	e->start_ns = f->start_ns;
	e->end_ns = e->duration_ns = e->child_ns = 0;
	e->unfinished = 0;
	e->entered_before = f->before;
	e->args = f->args;
	e->args_len = f->args_len;
	e->ret = NULL;
	e->ret_len = 0;
}

static void emit_enter(struct thread_walk *w, struct frame *f)
{
	struct walk_event e;
	f->emitted = 1;
	w->stats->shown++;
	if (!w->consumer->enter)
		return;
	fill_event(w, f, &e, WALK_ENTER);
	w->consumer->enter(w->consumer->ctx, &e);
}

/* Hands over pending frames that have lasted long enough by `now`. */
static void release_pending(struct thread_walk *w, uint64_t now)
{
	while (w->first_pending < w->depth) {
		struct frame *f = &w->stack[w->first_pending];
		if (f->eligible && !f->emitted) {
			if (now - f->start_ns < w->filters->min_duration_ns ||
			    now < w->filters->from_ns)
				return;
			emit_enter(w, f);
		}
		w->first_pending++;
	}
}

static void push_frame(struct thread_walk *w, const struct trace_event *ev)
{
	const struct walk_filters *fl = w->filters;
	if (!ARRAY_RESERVE(w->stack, w->depth, w->cap, 64))
		abort();
	const struct frame *up = w->depth ? &w->stack[w->depth - 1] : NULL;
	struct frame *f = &w->stack[w->depth];
	f->address = ev->address;
	f->sym = resolve(w, ev);
	f->start_ns = ev->time_ns;
	f->seq = ++w->seq;
	f->child_ns = 0;
	f->emitted = 0;
	f->before = (uint8_t)ev->before;
	w->stats->entered_before += f->before;
	f->args = ev->values;
	f->args_len = ev->values_len;
	f->ret = NULL;
	f->ret_len = 0;
	int flags = filter_flags(fl, f->sym);
	f->in_scope = !fl->only || (flags & FILTER_ONLY) || (up && up->in_scope);
	f->parent = !up ? -1 : up->eligible ? (int32_t)(w->depth - 1) : up->parent;
	f->depth = f->parent < 0 ? 0 : w->stack[f->parent].depth + 1;
	f->eligible = f->in_scope && !(flags & FILTER_HIDE) &&
		      (!fl->max_depth || f->depth < fl->max_depth) &&
		      (!fl->to_set || f->start_ns <= fl->to_ns);
	w->depth++;
	w->stats->calls++;
	if (w->depth > w->stats->max_depth)
		w->stats->max_depth = w->depth;
	if (f->eligible && !fl->min_duration_ns && f->start_ns >= fl->from_ns)
		emit_enter(w, f); /* else pending: release_pending() decides */
}

enum { ENDED = 0, UNFINISHED = 1, CUT = 2 }; /* how pop_frame ends a call */

static void pop_frame(struct thread_walk *w, uint64_t end_ns, int how)
{
	struct frame *f = &w->stack[--w->depth];
	int unfinished = how != ENDED;
	if (w->first_pending > w->depth)
		w->first_pending = w->depth;
	w->stats->unfinished += unfinished;
	w->stats->cut += how == CUT;
	if (!f->emitted)
		return;
	uint64_t duration = end_ns > f->start_ns ? end_ns - f->start_ns : 0;
	if (f->parent >= 0)
		w->stack[f->parent].child_ns += duration;
	if (!w->consumer->exit)
		return;
	struct walk_event e;
	fill_event(w, f, &e, WALK_EXIT);
	e.end_ns = end_ns;
	e.duration_ns = duration;
	e.child_ns = f->child_ns;
	e.unfinished = unfinished;
	e.ret = f->ret;
	e.ret_len = f->ret_len;
	w->consumer->exit(w->consumer->ctx, &e);
}

/* An exit pops its frame; frames above it (left by longjmp) end with it. */
static void handle_exit(struct thread_walk *w, const struct trace_event *ev)
{
	size_t i = w->depth;
	if (!ev->innermost)
		while (i > 0 && w->stack[i - 1].address != ev->address)
			i--;
	if (i == 0) {
		w->stats->unmatched++;
		return;
	}
	while (w->depth > i)
		pop_frame(w, ev->time_ns, UNFINISHED);
	w->stack[i - 1].ret = ev->values;
	w->stack[i - 1].ret_len = ev->values_len;
	pop_frame(w, ev->time_ns, ENDED);
}

/* A mark: handed over with the depth of the shown calls around it, when
 * -F leaves it in scope.  Pending calls (-t) around it are released first,
 * so that it comes after their enters. */
static void handle_mark(struct thread_walk *w, const struct trace_event *ev)
{
	const struct walk_consumer *c = w->consumer;
	if (!c->mark)
		return;
	const struct frame *top = w->depth ? &w->stack[w->depth - 1] : NULL;
	if (w->filters->only && !(top && top->in_scope))
		return;
	if (ev->time_ns < w->filters->from_ns ||
	    (w->filters->to_set && ev->time_ns > w->filters->to_ns))
		return;
	int32_t shown = !top ? -1 : top->eligible ? (int32_t)(w->depth - 1) : top->parent;
	while (shown >= 0 && !w->stack[shown].emitted)
		shown = w->stack[shown].parent;
	struct walk_mark m = {.thread = &w->info,
			      .time_ns = ev->time_ns,
			      .depth = shown < 0 ? 0 : w->stack[shown].depth + 1,
			      .seq = w->seq,
			      .text = ev->mark,
			      .len = ev->mark_len};
	c->mark(c->ctx, &m);
}

static int thread_selected(const struct walk_filters *f, const struct trace_thread *t)
{
	int ok_tid = f->ntids == 0, ok_pid = f->npids == 0;
	for (uint32_t i = 0; i < f->ntids; i++)
		ok_tid |= f->tids[i] == t->tid;
	for (uint32_t i = 0; i < f->npids; i++)
		ok_pid |= f->pids[i] == t->pid;
	return ok_tid && ok_pid && (t->nwindows > 0 || t->nkernel_windows > 0);
}

static void walk_thread(struct thread_walk *w, const struct trace_thread *t)
{
	const struct walk_consumer *c = w->consumer;
	struct trace_event ev;
	w->info.thread = t;
	w->info.image = trace_reader_image(w->reader, t->image);
	w->info.pid = t->pid;
	w->info.tid = t->tid;
	w->info.name = t->name ? t->name : "";
	w->depth = w->first_pending = 0;
	w->seq = w->last_ns = 0;
	w->syms_serial = 0;
	trace_cursor_init(&w->cursor, w->reader, t);
	if (c->begin_thread)
		c->begin_thread(c->ctx, &w->info);
	while (trace_cursor_next(&w->cursor, &ev)) {
		w->last_ns = ev.time_ns;
		if (w->filters->min_duration_ns || w->filters->from_ns)
			release_pending(w, ev.time_ns);
		if (ev.type == TRACE_ENTER) {
			__atomic_store_n(&w->stats->events, w->stats->events + 1, __ATOMIC_RELAXED);
			push_frame(w, &ev);
		} else if (ev.type == TRACE_EXIT) {
			w->stats->events++;
			handle_exit(w, &ev);
		} else if (ev.type == TRACE_PAUSE) {
			while (w->depth)
				pop_frame(w, ev.time_ns, ev.lost ? CUT : UNFINISHED);
		} else if (ev.type == TRACE_UNWIND) {
			/* lost: kernel events are missing (the calls of a
			 * lost kernel chunk), not a longjmp. */
			while (w->depth > ev.stay)
				pop_frame(w, ev.time_ns, ev.lost ? CUT : UNFINISHED);
		} else if (ev.type == TRACE_MARK) {
			handle_mark(w, &ev);
		}
	}
	w->stats->left_open += w->depth;
	while (w->depth)
		pop_frame(w, w->last_ns, UNFINISHED);
	trace_cursor_fini(&w->cursor);
	if (c->end_thread)
		c->end_thread(c->ctx, &w->info);
}

int walker_run(struct trace_reader *r, struct symbol_table *symbols, const struct walk_filters *f,
	       const struct walk_consumer *c, struct walk_stats *stats)
{
	struct walk_stats local;
	struct walk_filters none;
	memset(&none, 0, sizeof(none));
	struct thread_walk w = {.reader = r,
				.symbols = symbols,
				.filters = f ? f : &none,
				.consumer = c,
				.stats = stats ? stats : &local};
	memset(w.stats, 0, sizeof(*w.stats));
	for (size_t i = 0; i < r->nthreads; i++)
		if (thread_selected(w.filters, &r->threads[i]))
			walk_thread(&w, &r->threads[i]);
	free(w.stack);
	free(w.syms);
	return 0;
}
