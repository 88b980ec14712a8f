/*
 * json_tree.c - the JSON call tree, in the calltrace-rs schema, extended:
 *
 *   {"call_trees": {"<tid>": {"thread_id", "pid", "image", "thread_name",
 *      "calls": [{"function", "kind" (other kinds than "function":
 *                 "library", "syscall", "sched"), "address", "start_time", "start_ns", "file",
 *                 "line", "arguments" (when recorded), "children": [...],
 *                 "end_time", "end_ns", "duration_ns", "return_value"
 *                 (when recorded)}]}},
 *    "metadata": {"version", "timestamp", "command", "total_calls",
 *                 "threads", "processes"}}
 *
 * Written as the walk goes (a call's object opens at its enter and closes
 * at its exit), so memory is bounded by depth, not by the trace.  The
 * metadata comes last because the call count is known only then.  A tid
 * seen again in a later process image is keyed "<tid>.2", "<tid>.3", ...
 */
#include "text_views.h"
#include "call_kind.h"
#include "call_values.h"
#include "view_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct json_tree {
	FILE *out;
	const struct trace_reader *reader;
	int pretty;
	int first_thread;
	uint8_t *need_comma; /* per depth: a sibling was written before */
	size_t ncomma;
	uint32_t *tids_seen;
	size_t ntids;
	uint64_t threads;
	time_t clock_second; /* put_clock's cache of the formatted second */
	char clock_prefix[16];
	struct call_values *values; /* NULL until a call has some */
};

/* The values' writer, made on first use, and `o` set to write to the
 * output.  (Called before the call that takes both: C leaves the order in
 * which a call's arguments are evaluated open.) */
static struct call_values *values_writer(struct json_tree *jt, struct value_out *o)
{
	if (!jt->values && !(jt->values = call_values_new()))
		abort();
	value_out_init_file(o, jt->out);
	return jt->values;
}

struct json_tree *json_tree_new(FILE *out, const struct trace_reader *r, int pretty)
{
	struct json_tree *jt = calloc(1, sizeof(*jt));
	if (!jt)
		return NULL;
	jt->out = out;
	jt->reader = r;
	jt->pretty = pretty;
	jt->first_thread = 1;
	fputs(pretty ? "{\n  \"call_trees\": {" : "{\"call_trees\":{", out);
	return jt;
}

void json_tree_free(struct json_tree *jt)
{
	if (!jt)
		return;
	free(jt->need_comma);
	free(jt->tids_seen);
	call_values_free(jt->values);
	free(jt);
}

static void newline(struct json_tree *jt, size_t indent)
{
	if (!jt->pretty)
		return;
	static const char spaces[] =
	    "\n                                                                ";
	fwrite_unlocked(spaces, 1, 1, jt->out);
	for (size_t left = indent * 2; left > 0;) {
		size_t n = left < sizeof(spaces) - 2 ? left : sizeof(spaces) - 2;
		fwrite_unlocked(spaces + 1, 1, n, jt->out);
		left -= n;
	}
}

/* Wall-clock time of a trace time, "HH:MM:SS.nnnnnnnnn" (UTC). */
static void put_clock(struct json_tree *jt, uint64_t ns)
{
	uint64_t real = jt->reader->header.start_real_ns + ns;
	time_t secs = (time_t)(real / 1000000000u);
	if (secs != jt->clock_second || !jt->clock_prefix[0]) {
		struct tm tm;
		gmtime_r(&secs, &tm);
		strftime(jt->clock_prefix, sizeof(jt->clock_prefix), "\"%H:%M:%S.", &tm);
		jt->clock_second = secs;
	}
	char digits[11];
	uint64_t frac = real % 1000000000u;
	for (int i = 8; i >= 0; i--, frac /= 10)
		digits[i] = (char)('0' + frac % 10);
	digits[9] = '"';
	fputs_unlocked(jt->clock_prefix, jt->out);
	fwrite_unlocked(digits, 1, 10, jt->out);
}

static void put_hex(FILE *out, uint64_t v)
{
	char buf[20], *p = buf + sizeof(buf);
	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), out);
}

static unsigned tid_occurrence(struct json_tree *jt, uint32_t tid)
{
	unsigned n = 1;
	for (size_t i = 0; i < jt->ntids; i++)
		n += jt->tids_seen[i] == tid;
	jt->tids_seen = realloc(jt->tids_seen, (jt->ntids + 1) * sizeof(*jt->tids_seen));
	jt->tids_seen[jt->ntids++] = tid;
	return n;
}

static void on_begin_thread(void *ctx, const struct walk_thread *t)
{
	struct json_tree *jt = ctx;
	unsigned n = tid_occurrence(jt, t->tid);
	if (!jt->first_thread)
		fputc(',', jt->out);
	jt->first_thread = 0;
	jt->threads++;
	newline(jt, 2);
	if (n > 1)
		fprintf(jt->out, "\"%u.%u\": {", t->tid, n);
	else
		fprintf(jt->out, "\"%u\": {", t->tid);
	newline(jt, 3);
	fprintf(jt->out, "\"thread_id\": %u, \"pid\": %u, \"image\": %u, \"thread_name\": ", t->tid,
		t->pid, t->thread->image);
	view_json_string(jt->out, t->name);
	fputs(",", jt->out);
	newline(jt, 3);
	fputs("\"calls\": [", jt->out);
	if (jt->ncomma)
		jt->need_comma[0] = 0;
}

static void on_end_thread(void *ctx, const struct walk_thread *t)
{
	(void)t;
	struct json_tree *jt = ctx;
	newline(jt, 3);
	fputs("]", jt->out);
	newline(jt, 2);
	fputs("}", jt->out);
}

/* A system call's arguments are written at its exit, with what was copied
 * at its return (the data read()); other calls' at the enter. */
static void put_arguments(struct json_tree *jt, const struct walk_event *e)
{
	struct value_out o;
	fputs_unlocked(", \"arguments\": ", jt->out);
	struct call_values *cv = values_writer(jt, &o);
	call_values_args_json(cv, &o, e->sym, e->args, e->args_len, e->ret, e->ret_len);
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct json_tree *jt = ctx;
	if (e->depth + 2 > jt->ncomma) {
		size_t n = (e->depth + 2) * 2;
		jt->need_comma = realloc(jt->need_comma, n);
		memset(jt->need_comma + jt->ncomma, 0, n - jt->ncomma);
		jt->ncomma = n;
	}
	FILE *out = jt->out;
	if (jt->need_comma[e->depth])
		putc_unlocked(',', out);
	jt->need_comma[e->depth] = 1;
	jt->need_comma[e->depth + 1] = 0;
	newline(jt, 4 + e->depth);
	fputs_unlocked("{\"function\": ", out);
	view_json_string(out, e->sym->name);
	if (e->sym->kind != CALL_FUNCTION) { /* absent: "function" */
		fputs_unlocked(", \"kind\": \"", out);
		fputs_unlocked(view_kind_json(e->sym->kind), out);
		putc_unlocked('"', out);
	}
	fputs_unlocked(", \"address\": \"0x", out);
	put_hex(out, e->address);
	fputs_unlocked("\", \"start_time\": ", out);
	put_clock(jt, e->start_ns);
	fputs_unlocked(", \"start_ns\": ", out);
	view_put_u64(out, e->start_ns);
	fputs_unlocked(", \"file\": ", out);
	if (e->sym->file)
		view_json_string(out, e->sym->file);
	else
		fputs_unlocked("null", out);
	fputs_unlocked(", \"line\": ", out);
	view_put_u64(out, e->sym->line);
	if (e->args && e->sym->kind != CALL_SYSCALL)
		put_arguments(jt, e);
	fputs_unlocked(", \"children\": [", out);
}

static void on_exit_event(void *ctx, const struct walk_event *e)
{
	struct json_tree *jt = ctx;
	if (jt->need_comma[e->depth + 1])
		newline(jt, 4 + e->depth);
	fputs_unlocked("], \"end_time\": ", jt->out);
	put_clock(jt, e->end_ns);
	fputs_unlocked(", \"end_ns\": ", jt->out);
	view_put_u64(jt->out, e->end_ns);
	fputs_unlocked(", \"duration_ns\": ", jt->out);
	view_put_u64(jt->out, e->duration_ns);
	if (e->args && e->sym->kind == CALL_SYSCALL)
		put_arguments(jt, e);
	if (e->ret) {
		struct value_out o;
		fputs_unlocked(", \"return_value\": ", jt->out);
		struct call_values *cv = values_writer(jt, &o);
		call_values_return_json(cv, &o, e->sym, e->ret, e->ret_len);
	}
	if (e->entered_before)
		fputs_unlocked(", \"entered_before\": true", jt->out);
	fputs_unlocked(e->unfinished ? ", \"unfinished\": true}" : "}", jt->out);
}

void json_tree_consumer(struct json_tree *jt, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = jt;
	c->begin_thread = on_begin_thread;
	c->end_thread = on_end_thread;
	c->enter = on_call;
	c->exit = on_exit_event;
}

void json_tree_finish(struct json_tree *jt, const struct walk_stats *stats)
{
	const struct trace_reader *r = jt->reader;
	time_t secs = (time_t)(r->header.start_real_ns / 1000000000u);
	struct tm tm;
	char stamp[64];
	gmtime_r(&secs, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	newline(jt, 1);
	fputs("},", jt->out);
	newline(jt, 1);
	fprintf(jt->out, "\"metadata\": {\"version\": \"1\", \"timestamp\": \"%s.%06lluZ\", ",
		stamp, (unsigned long long)(r->header.start_real_ns % 1000000000u / 1000));
	fputs("\"command\": ", jt->out);
	view_json_string(jt->out, r->command);
	if (r->header.filters[0]) { /* the options that left calls out as they were recorded */
		fputs(", \"filters\": ", jt->out);
		view_json_string(jt->out, r->header.filters);
	}
	fprintf(jt->out, ", \"total_calls\": %llu, \"threads\": %llu, \"processes\": %zu}",
		(unsigned long long)stats->shown, (unsigned long long)jt->threads,
		trace_reader_processes(r));
	newline(jt, 0);
	fputs("}\n", jt->out);
}
