/*
 * seq_model.c - builds the sequence-diagram model from the walker stream:
 * maps each function to its participant (module, source file or function),
 * turns enters into call messages and exits into returns, one section per
 * thread, and stops adding calls of a thread after --max-calls.
 */
#include <stdlib.h>
#include <string.h>
#include "seq_model.h"
#include "call_values.h"
#include "../utils/array.h"

#define NOT_SHOWN UINT32_MAX

static const char *participant_name(enum seq_by by, const struct symbol *s)
{
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
		if (asprintf(&text, strchr(s->name, '(') ? "%s" : "%s()", s->name) < 0)
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
	call_values_args_c(m->values, &o, e->sym, e->args, e->args_len);
	const char *args = value_out_text(&o);
	const char *paren = strchr(e->sym->name, '(');
	int name_len = paren ? (int)(paren - e->sym->name) : (int)strlen(e->sym->name);
	char *text = NULL;
	int cut = strlen(args) > SEQ_ARGS_SHOWN;
	if (asprintf(&text, "%.*s(%.*s%s)", name_len, e->sym->name, SEQ_ARGS_SHOWN, args,
		     cut ? "..." : "") < 0)
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
	uint32_t *s = realloc(m->stack, cap * sizeof(*s));
	if (!s)
		return -1;
	m->stack = s;
	m->cap_stack = cap;
	return 0;
}

static void begin_thread(void *ctx, const struct walk_thread *t)
{
	struct seq_model *m = ctx;
	(void)t;
	m->thread_calls = 0;
	m->cut_msg = SIZE_MAX;
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
		if (!add_msg(m, SEQ_CUT))
			return;
		m->cut_msg = m->nmsgs - 1;
	}
	m->msgs[m->cut_msg].cut_calls++;
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct seq_model *m = ctx;
	if (grow_stack(m, e->depth) < 0) {
		m->failed = 1;
		return;
	}
	m->stack[e->depth] = NOT_SHOWN;
	if (m->max_calls && m->thread_calls >= m->max_calls) {
		cut(m);
		return;
	}
	if (m->thread_calls++ == 0)
		start_section(m, e->thread);
	uint32_t from = e->depth ? m->stack[e->depth - 1] : SEQ_START;
	uint32_t to = participant_of(m, e->sym);
	char *own = e->args ? call_text_with_args(m, e) : NULL;
	const char *text = own ? own : call_text(m, e->sym);
	struct seq_msg *msg =
	    from != NOT_SHOWN && to != NOT_SHOWN && text ? add_msg(m, SEQ_CALL) : NULL;
	if (!msg) {
		free(own);
		m->failed = 1;
		return;
	}
	msg->own_text = own;
	msg->from = from;
	msg->to = to;
	msg->text = text;
	msg->seq = e->seq;
	m->stack[e->depth] = to;
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	struct seq_model *m = ctx;
	if (e->depth >= m->cap_stack || m->stack[e->depth] == NOT_SHOWN)
		return;
	struct seq_msg *msg = add_msg(m, SEQ_RETURN);
	if (!msg)
		return;
	msg->from = m->stack[e->depth];
	msg->to = e->depth ? m->stack[e->depth - 1] : SEQ_START;
	m->stack[e->depth] = NOT_SHOWN;
}

struct seq_model *seq_model_new(enum seq_by by, uint64_t max_calls)
{
	struct seq_model *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->by = by;
	m->max_calls = max_calls;
	m->cut_msg = SIZE_MAX;
	if (add_participant(m, "start") != SEQ_START) {
		seq_model_free(m);
		return NULL;
	}
	return m;
}

void seq_model_consumer(struct seq_model *m, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = m;
	c->begin_thread = begin_thread;
	c->enter = on_call;
	c->exit = on_leave;
}

int seq_model_status(const struct seq_model *m)
{
	return m->failed ? -1 : 0;
}

const char *seq_cut_text(const struct seq_model *m, const struct seq_msg *msg, char *buf,
			 size_t len)
{
	snprintf(buf, len, "%llu more calls of this thread not shown (--max-calls %llu)",
		 (unsigned long long)msg->cut_calls, (unsigned long long)m->max_calls);
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
		if (m->msgs[i].kind == SEQ_SECTION)
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
