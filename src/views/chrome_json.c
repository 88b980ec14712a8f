/*
 * chrome_json.c - Chrome Trace Event JSON, streamed: one complete ("X")
 * event written when each call exits, with process and thread names as
 * metadata ("M") events, and an instant ("i") event for each
 * calltrace_mark().  A call's kind is its category ("cat": "function",
 * "library", "syscall", "sched" for an off-CPU interval, which is a slice
 * of its own on the thread's track, inside the call it interrupted); its
 * values, and a library call's library, are in "args".  A time window
 * (from, to) keeps only the calls that overlap it.  Opens in Perfetto UI and chrome://tracing.
 * Memory: a cache of escaped names per symbol, never the trace.
 */
#include <stdlib.h>
#include <string.h>
#include "views.h"
#include "call_kind.h"
#include "call_values.h"
#include "../utils/array.h"
#include "view_util.h"

struct chrome_json {
	FILE *out;
	int first; /* no event written yet */
	int failed;
	struct view_symtab names; /* symbol id -> struct name_cache */
	uint32_t *pids;		  /* processes already named */
	size_t npids, cap_pids;
	struct call_values *values; /* NULL until a call has some */
	uint64_t from_ns, to_ns;    /* the window */
};

/* The escaped pieces around a call's numbers, made once per symbol. */
struct name_cache {
	char *head; /* {"name":...,"cat":"function","ph":"X","ts": */
	char *args; /* ,"args":{"file":...,"line":N,"seq": */
};

static void free_name_cache(void *p)
{
	struct name_cache *n = p;
	free(n->head);
	free(n->args);
	free(n);
}

static char *json_piece(const char *before, const char *s, const char *after)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fputs(before, f);
	view_json_string(f, s);
	fputs(after, f);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct name_cache *make_name_cache(const struct symbol *s)
{
	struct name_cache *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	char line[40], cat[64];
	snprintf(line, sizeof(line), ",\"line\":%u,\"seq\":", s->line);
	snprintf(cat, sizeof(cat), ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":", view_kind_json(s->kind));
	n->head = json_piece("{\"name\":", s->name, cat);
	n->args = json_piece(",\"args\":{\"file\":", s->file ? s->file : "", line);
	if (n->args && s->kind == CALL_LIBRARY) { /* ,"args":{"library":"libc.so.6","file":... */
		char *rest = NULL, *with = NULL;
		if (asprintf(&rest, ",%s", n->args + strlen(",\"args\":{")) >= 0)
			with =
			    json_piece(",\"args\":{\"library\":", view_basename(s->module), rest);
		free(rest);
		free(n->args);
		n->args = with;
	}
	if (!n->head || !n->args) {
		free_name_cache(n);
		return NULL;
	}
	return n;
}

static const struct name_cache *name_cache(struct chrome_json *cj, const struct symbol *s)
{
	void **slot = view_symtab_slot(&cj->names, s->id);
	if (!slot)
		return NULL;
	if (!*slot)
		*slot = make_name_cache(s);
	return *slot;
}

static void separator(struct chrome_json *cj)
{
	if (cj->first)
		cj->first = 0;
	else
		fputs_unlocked(",\n", cj->out);
}

static void metadata(struct chrome_json *cj, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	separator(cj);
	fprintf(cj->out,
		"{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":", what,
		pid, tid);
	view_json_string(cj->out, name);
	fputs_unlocked("}}", cj->out);
}

static int pid_named(struct chrome_json *cj, uint32_t pid)
{
	for (size_t i = 0; i < cj->npids; i++)
		if (cj->pids[i] == pid)
			return 1;
	if (!ARRAY_RESERVE(cj->pids, cj->npids, cj->cap_pids, 16))
		return 1; /* only a name is lost */
	cj->pids[cj->npids++] = pid;
	return 0;
}

static void begin_thread(void *ctx, const struct walk_thread *t)
{
	struct chrome_json *cj = ctx;
	char buf[256];
	if (!pid_named(cj, t->pid)) {
		const char *cmd = t->image && t->image->command ? t->image->command : "";
		snprintf(buf, sizeof(buf), "%s", *cmd ? cmd : "process");
		metadata(cj, "process_name", t->pid, t->tid, buf);
	}
	if (t->name && *t->name)
		snprintf(buf, sizeof(buf), "%s (tid %u)", t->name, t->tid);
	else
		snprintf(buf, sizeof(buf), "tid %u", t->tid);
	metadata(cj, "thread_name", t->pid, t->tid, buf);
}

/* The call's recorded values, as the json command writes them. */
static void put_values(struct chrome_json *cj, const struct walk_event *e)
{
	struct value_out o;
	if (!cj->values && !(cj->values = call_values_new())) {
		cj->failed = 1;
		return;
	}
	value_out_init_file(&o, cj->out);
	if (e->args) {
		fputs_unlocked(",\"arguments\":", cj->out);
		call_values_args_json(cj->values, &o, e->sym, e->args, e->args_len, e->ret,
				      e->ret_len);
	}
	if (e->ret) {
		fputs_unlocked(",\"return_value\":", cj->out);
		call_values_return_json(cj->values, &o, e->sym, e->ret, e->ret_len);
	}
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	struct chrome_json *cj = ctx;
	if (e->end_ns < cj->from_ns || e->start_ns > cj->to_ns)
		return;
	const struct name_cache *n = name_cache(cj, e->sym);
	if (!n) {
		cj->failed = 1;
		return;
	}
	FILE *out = cj->out;
	separator(cj);
	fputs_unlocked(n->head, out);
	view_put_us(out, e->start_ns);
	fputs_unlocked(",\"dur\":", out);
	view_put_us(out, e->duration_ns);
	fputs_unlocked(",\"pid\":", out);
	view_put_u64(out, e->thread->pid);
	fputs_unlocked(",\"tid\":", out);
	view_put_u64(out, e->thread->tid);
	fputs_unlocked(n->args, out);
	view_put_u64(out, e->seq);
	if (e->unfinished)
		fputs_unlocked(",\"unfinished\":true", out);
	if (e->entered_before)
		fputs_unlocked(",\"entered_before\":true", out);
	if (e->args || e->ret)
		put_values(cj, e);
	fputs_unlocked("}}", out);
}

/* {"name":"TEXT","cat":"mark","ph":"i","s":"t","ts":..,"pid":..,"tid":..} */
static void on_mark(void *ctx, const struct walk_mark *m)
{
	struct chrome_json *cj = ctx;
	if (m->time_ns < cj->from_ns || m->time_ns > cj->to_ns)
		return;
	char *text = strndup(m->text, m->len);
	if (!text) {
		cj->failed = 1;
		return;
	}
	FILE *out = cj->out;
	separator(cj);
	fputs_unlocked("{\"name\":", out);
	view_json_string(out, text);
	fputs_unlocked(",\"cat\":\"mark\",\"ph\":\"i\",\"s\":\"t\",\"ts\":", out);
	view_put_us(out, m->time_ns);
	fputs_unlocked(",\"pid\":", out);
	view_put_u64(out, m->thread->pid);
	fputs_unlocked(",\"tid\":", out);
	view_put_u64(out, m->thread->tid);
	fputs_unlocked(",\"args\":{\"after_seq\":", out);
	view_put_u64(out, m->seq);
	fputs_unlocked("}}", out);
	free(text);
}

struct chrome_json *chrome_json_new(FILE *out, const struct trace_reader *r, uint64_t from_ns,
				    uint64_t to_ns)
{
	(void)r;
	struct chrome_json *cj = calloc(1, sizeof(*cj));
	if (!cj)
		return NULL;
	cj->out = out;
	cj->from_ns = from_ns;
	cj->to_ns = to_ns;
	cj->first = 1;
	fputs("{\"traceEvents\":[\n", out);
	return cj;
}

void chrome_json_consumer(struct chrome_json *cj, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = cj;
	c->begin_thread = begin_thread;
	c->exit = on_leave;
	c->mark = on_mark;
}

int chrome_json_finish(struct chrome_json *cj)
{
	fputs("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"calltrace\"}}\n",
	      cj->out);
	return cj->failed ? -1 : 0;
}

void chrome_json_free(struct chrome_json *cj)
{
	if (!cj)
		return;
	view_symtab_free(&cj->names, free_name_cache);
	call_values_free(cj->values);
	free(cj->pids);
	free(cj);
}
