/*
 * seq_model.c - builds the sequence-diagram model from the walker stream:
 * turns enters into call messages and exits into returns, one section per
 * thread, and stops adding calls of a thread after --max-calls; then maps
 * each function to its participant (module, source file or function; by
 * default modules when the calls ran in several, else source files).
 * Library calls go to their library's lifeline ("libc.so.6"), system calls
 * and off-CPU intervals to the kernel's ("kernel"), however the program's
 * own functions are drawn; by default (modules when the calls ran in
 * several) a program that calls a library is drawn by modules.  A call
 * entered before a ring's kept calls says so in its message; one with no
 * recorded end has a note "unfinished: f()" before its return.
 */
#include <stdlib.h>
#include <string.h>
#include "seq_model.h"
#include "call_kind.h"
#include "call_values.h"
#include "../utils/array.h"

#define NOT_SHOWN UINT32_MAX

/* On the stack: a call not shown (after the cut). */
static const struct symbol not_shown = {.name = ""};

static const char *participant_name(enum seq_by by, const struct symbol *s)
{
	if (s->kind != CALL_FUNCTION)
		return view_kind_place(s);
	switch (by) {
	case SEQ_BY_FUNCTION:
		return s->name;
	case SEQ_BY_FILE:
		if (s->file && *s->file)
			return view_basename(s->file);
		return view_basename(s->module);
	case SEQ_BY_MODULE:
	default:
		return view_basename(s->module);
	}
}

static uint32_t add_participant(struct seq_model *m, const char *label)
{
	for (uint32_t i = 0; i < m->nparts; i++)
		if (strcmp(m->parts[i].label, label) == 0)
			return i;
	if (!ARRAY_RESERVE(m->parts, m->nparts, m->cap_parts, 16))
		return NOT_SHOWN;
	m->parts[m->nparts].label = strdup(label);
	if (!m->parts[m->nparts].label)
		return NOT_SHOWN;
	return m->nparts++;
}

static uint32_t participant_of(struct seq_model *m, const struct symbol *s)
{
	void **slot = view_symtab_slot(&m->part_of, s->id);
	if (!slot)
		return NOT_SHOWN;
	if (!*slot) {
		uint32_t p = add_participant(m, participant_name(m->by, s));
		if (p == NOT_SHOWN)
			return NOT_SHOWN;
		*slot = (void *)(uintptr_t)(p + 1);
	}
	return (uint32_t)(uintptr_t)*slot - 1;
}

static const char *call_text(struct seq_model *m, const struct symbol *s)
{
	void **slot = view_symtab_slot(&m->call_text, s->id);
	if (!slot)
		return NULL;
	if (!*slot) {
		char *text;
		int bare = view_name_params(s->name) || s->kind == CALL_OFFCPU;
		if (asprintf(&text, bare ? "%s" : "%s()", s->name) < 0)
			return NULL;
		*slot = text;
	}
	return *slot;
}

#define SEQ_ARGS_SHOWN 48 /* characters of arguments in a call's label */

/* "f(a=1, s=\"x\")", the arguments cut at SEQ_ARGS_SHOWN characters. */
static char *call_text_with_args(struct seq_model *m, const struct walk_event *e)
{
	struct value_out o;
	if (!m->values && !(m->values = call_values_new()))
		return NULL;
	value_out_init_buffer(&o);
	call_values_args_c(m->values, &o, e->sym, e->args, e->args_len, e->ret, e->ret_len);
	const char *args = value_out_text(&o);
	const char *paren = view_name_params(e->sym->name);
	int name_len = paren ? (int)(paren - e->sym->name) : (int)strlen(e->sym->name);
	char *text = NULL;
	int cut = strlen(args) > SEQ_ARGS_SHOWN;
	if (asprintf(&text, "%.*s(%.*s%s)%s", name_len, e->sym->name, SEQ_ARGS_SHOWN, args,
		     cut ? "..." : "", view_name_qualifiers(e->sym->name)) < 0)
		text = NULL;
	value_out_free(&o);
	return text;
}

static struct seq_msg *add_msg(struct seq_model *m, enum seq_msg_kind kind)
{
	if (!ARRAY_RESERVE(m->msgs, m->nmsgs, m->cap_msgs, 256)) {
		m->failed = 1;
		return NULL;
	}
	struct seq_msg *msg = &m->msgs[m->nmsgs++];
	memset(msg, 0, sizeof(*msg));
	msg->kind = kind;
	return msg;
}

static int grow_stack(struct seq_model *m, uint32_t depth)
{
	if (depth < m->cap_stack)
		return 0;
	uint32_t cap = m->cap_stack ? m->cap_stack : 64;
	while (cap <= depth)
		cap *= 2;
	const struct symbol **s = realloc(m->stack, cap * sizeof(*s));
	if (!s)
		return -1;
	m->stack = s;
	m->cap_stack = cap;
	return 0;
}

static void begin_thread(void *ctx, const struct walk_thread *t)
{
	struct seq_model *m = ctx;
	/* A forked child goes on from inside its parent's calls: no main. */
	m->awaiting_main =
	    m->from_main && t->tid == t->pid && t->image && t->image->how != PROCESS_FORK;
	m->thread_calls = 0;
	m->cut_msg = SIZE_MAX;
	m->noted = 0;
}

static void start_section(struct seq_model *m, const struct walk_thread *t)
{
	char label[256];
	struct seq_msg *msg = add_msg(m, SEQ_SECTION);
	if (!msg)
		return;
	msg->text = strdup(view_thread_label(t, label, sizeof(label)));
	if (!msg->text)
		m->failed = 1;
}

static void cut(struct seq_model *m)
{
	if (m->cut_msg == SIZE_MAX) {
		struct seq_msg *msg = add_msg(m, SEQ_CUT);
		if (!msg)
			return;
		msg->cut_seq = m->last_seq;
		msg->cut_ns = m->last_ns;
		m->cut_msg = m->nmsgs - 1;
	}
	m->msgs[m->cut_msg].cut_calls++;
}

static void count_file(struct seq_model *m, const struct symbol *s)
{
	if (s->kind != CALL_FUNCTION || m->files > 1 || !s->file || !*s->file ||
	    s->file == m->first_file)
		return;
	if (!m->first_file) {
		m->first_file = s->file;
		m->files = 1;
	} else if (strcmp(s->file, m->first_file) != 0)
		m->files = 2;
}

/* Whether a call comes before main in a thread that waits for main (C++
 * static initialisers): left out, and its callees with it. */
static int before_main(struct seq_model *m, const struct walk_event *e)
{
	if (!m->awaiting_main)
		return 0;
	if (e->depth == 0 && strcmp(e->sym->name, "main") == 0) {
		m->awaiting_main = 0;
		return 0;
	}
	m->before_main += e->depth == 0;
	return 1;
}

/* The modules of the program's own functions (a library call's library is
 * a lifeline of its own whatever the choice). */
static void count_module(struct seq_model *m, const struct symbol *s)
{
	if (s->kind != CALL_FUNCTION || m->modules > 1 || s->module == m->first_module)
		return;
	if (!m->first_module)
		m->first_module = s->module;
	else if (strcmp(s->module, m->first_module) != 0)
		m->modules = 2;
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct seq_model *m = ctx;
	if (grow_stack(m, e->depth) < 0) {
		m->failed = 1;
		return;
	}
	m->stack[e->depth] = &not_shown;
	if (before_main(m, e))
		return;
	count_module(m, e->sym);
	count_file(m, e->sym);
	if (m->max_calls && m->thread_calls >= m->max_calls) {
		cut(m);
		return;
	}
	if (m->thread_calls++ == 0 && !m->noted)
		start_section(m, e->thread);
	const struct symbol *from = e->depth ? m->stack[e->depth - 1] : NULL;
	char *own = e->args ? call_text_with_args(m, e) : NULL;
	const char *text = own ? own : call_text(m, e->sym);
	if (e->entered_before && text) { /* a ring overwrote its enter */
		char *marked = NULL;
		if (asprintf(&marked, "%s (entered before the kept calls)", text) < 0)
			marked = NULL;
		free(own);
		text = own = marked;
	}
	struct seq_msg *msg = from != &not_shown && text ? add_msg(m, SEQ_CALL) : NULL;
	if (!msg) {
		free(own);
		m->failed = 1;
		return;
	}
	msg->own_text = own;
	msg->from_sym = from;
	msg->to_sym = e->sym;
	msg->text = text;
	msg->seq = e->seq;
	m->last_seq = e->seq;
	m->last_ns = e->start_ns;
	m->stack[e->depth] = e->sym;
}

/* A call with no recorded end: a note on its lifeline before the return
 * drawn at the thread's end. */
static void note_unfinished(struct seq_model *m, const struct symbol *s)
{
	struct seq_msg *msg = add_msg(m, SEQ_NOTE);
	char *text = NULL;
	const char *call = call_text(m, s);
	if (msg && call && asprintf(&text, "unfinished: %s", call) < 0)
		text = NULL;
	if (!msg || !text) {
		m->failed = 1;
		return;
	}
	msg->from_sym = s;
	msg->text = text;
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	struct seq_model *m = ctx;
	if (e->depth >= m->cap_stack || m->stack[e->depth] == &not_shown)
		return;
	if (e->unfinished)
		note_unfinished(m, m->stack[e->depth]);
	struct seq_msg *msg = add_msg(m, SEQ_RETURN);
	if (!msg)
		return;
	msg->from_sym = m->stack[e->depth];
	msg->to_sym = e->depth ? m->stack[e->depth - 1] : NULL;
	m->stack[e->depth] = &not_shown;
}

/* A calltrace_mark(): a note on the lifeline of the call it happened in. */
static void on_mark(void *ctx, const struct walk_mark *mk)
{
	struct seq_model *m = ctx;
	if (m->awaiting_main || (m->max_calls && m->thread_calls >= m->max_calls))
		return;
	if (mk->depth && (mk->depth > m->cap_stack || m->stack[mk->depth - 1] == &not_shown))
		return;
	if (m->thread_calls == 0 && m->cut_msg == SIZE_MAX && !m->noted) {
		start_section(m, mk->thread);
		m->noted = 1;
	}
	struct seq_msg *msg = add_msg(m, SEQ_NOTE);
	if (!msg)
		return;
	msg->from_sym = mk->depth ? m->stack[mk->depth - 1] : NULL;
	char *text = NULL;
	if (asprintf(&text, "mark: %.*s", (int)mk->len, mk->text) < 0)
		text = NULL;
	for (char *c = text; c && *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	msg->text = text;
	if (!text)
		m->failed = 1;
}

static uint32_t place_of(struct seq_model *m, const struct symbol *s)
{
	if (!s)
		return SEQ_START;
	uint32_t p = participant_of(m, s);
	if (p == NOT_SHOWN)
		m->failed = 1;
	return p == NOT_SHOWN ? SEQ_START : p;
}

void seq_model_finish(struct seq_model *m)
{
	const char *module = m->first_module ? view_basename(m->first_module) : "?";
	int one_file = m->asked == SEQ_BY_AUTO && m->modules <= 1 && m->files <= 1;
	if (m->by == SEQ_BY_AUTO)
		m->by = m->modules > 1 ? SEQ_BY_MODULE : one_file ? SEQ_BY_FUNCTION : SEQ_BY_FILE;
	if (m->by == SEQ_BY_FUNCTION && one_file)
		snprintf(m->title, sizeof(m->title),
			 "lifelines: functions (every call ran in one source file, %s)",
			 m->first_file ? view_basename(m->first_file) : module);
	else if (m->by == SEQ_BY_MODULE)
		snprintf(m->title, sizeof(m->title), "lifelines: modules%s",
			 m->asked == SEQ_BY_AUTO ? " (the calls ran in several)" : "");
	else if (m->by == SEQ_BY_FILE)
		snprintf(m->title, sizeof(m->title), "lifelines: source files%s%s%s",
			 m->asked == SEQ_BY_AUTO && m->modules <= 1 ? " (every call ran in " : "",
			 m->asked == SEQ_BY_AUTO && m->modules <= 1 ? module : "",
			 m->asked == SEQ_BY_AUTO && m->modules <= 1 ? ")" : "");
	else
		snprintf(m->title, sizeof(m->title), "lifelines: functions");
	for (size_t i = 0; i < m->nmsgs; i++) {
		struct seq_msg *msg = &m->msgs[i];
		if (msg->kind != SEQ_CALL && msg->kind != SEQ_RETURN && msg->kind != SEQ_NOTE)
			continue;
		msg->from = place_of(m, msg->from_sym);
		msg->to = place_of(m, msg->to_sym);
	}
	size_t used = strlen(m->title);
	if (m->from_main)
		snprintf(m->title + used, sizeof(m->title) - used,
			 m->before_main
			     ? ", from main (%llu call%s before it left out: --from-start "
			       "shows them)"
			     : ", from main",
			 (unsigned long long)m->before_main, m->before_main == 1 ? "" : "s");
}

struct seq_model *seq_model_new(enum seq_by by, uint64_t max_calls)
{
	struct seq_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->by = m->asked = by;
	m->max_calls = max_calls;
	m->cut_msg = SIZE_MAX;
	if (add_participant(m, "start") != SEQ_START) {
		seq_model_free(m);
		return NULL;
	}
	return m;
}

void seq_model_from_main(struct seq_model *m, int on)
{
	m->from_main = on;
}

void seq_model_consumer(struct seq_model *m, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = m;
	c->begin_thread = begin_thread;
	c->enter = on_call;
	c->exit = on_leave;
	c->mark = on_mark;
}

int seq_model_status(const struct seq_model *m)
{
	return m->failed ? -1 : 0;
}

const char *seq_cut_text(const struct seq_model *m, const struct seq_msg *msg, char *buf,
			 size_t len)
{
	char at[32];
	snprintf(buf, len,
		 "%llu more calls of this thread not shown (--max-calls %llu) after call #%llu at "
		 "%s: see them with --max-calls 0, or pick with -F FUNCTION, -D DEPTH, -t DURATION",
		 (unsigned long long)msg->cut_calls, (unsigned long long)m->max_calls,
		 (unsigned long long)msg->cut_seq, view_duration(msg->cut_ns, at, sizeof(at)));
	return buf;
}

void seq_model_free(struct seq_model *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->nparts; i++)
		free(m->parts[i].label);
	free(m->parts);
	for (size_t i = 0; i < m->nmsgs; i++)
		if (m->msgs[i].kind == SEQ_SECTION || m->msgs[i].kind == SEQ_NOTE)
			free((char *)m->msgs[i].text);
		else
			free(m->msgs[i].own_text);
	free(m->msgs);
	view_symtab_free(&m->part_of, NULL);
	view_symtab_free(&m->call_text, free);
	call_values_free(m->values);
	free(m->stack);
	free(m);
}
