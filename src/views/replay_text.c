/*
 * replay_text.c - the function graph, like `uftrace replay`:
 *
 *   # DURATION     TID     FUNCTION
 *               [  4242] | main() {
 *      1.234 us [  4242] |   parse();
 *      9.876 us [  4242] | } /- main -/
 *
 * A call is printed as a leaf (`f();` with its duration) when no shown call
 * happens inside it; that takes one event of look-ahead, kept in `pending`.
 */
#include "text_views.h"
#include "view_util.h"

#include <stdlib.h>
#include <string.h>

struct replay {
	FILE *out;
	struct replay_options opt;
	int have_pending;
	struct walk_event pending; /* an enter not printed yet */
};

struct replay *replay_new(FILE *out, const struct replay_options *o)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	if (!rp)
		return NULL;
	rp->out = out;
	rp->opt = *o;
	return rp;
}

void replay_free(struct replay *rp)
{
	free(rp);
}

static void put_prefix(struct replay *rp, const struct walk_event *e, int with_duration)
{
	char buf[32];
	if (rp->opt.show_duration) {
		if (with_duration)
			fprintf(rp->out, "%10s", view_duration(e->duration_ns, buf, sizeof(buf)));
		else
			fputs("          ", rp->out);
		fputc(' ', rp->out);
	}
	if (rp->opt.show_tid)
		fprintf(rp->out, "[%6u] ", e->thread->tid);
	fputs("| ", rp->out);
	for (uint32_t i = 0; i < e->depth; i++)
		fputs("  ", rp->out);
}

static void flush_pending(struct replay *rp)
{
	if (!rp->have_pending)
		return;
	put_prefix(rp, &rp->pending, 0);
	fputs(rp->pending.sym->name, rp->out);
	fputs("() {\n", rp->out);
	rp->have_pending = 0;
}

static void on_begin_thread(void *ctx, const struct walk_thread *t)
{
	struct replay *rp = ctx;
	char label[256];
	fprintf(rp->out, "#\n# %s%s%s\n", view_thread_label(t, label, sizeof(label)),
		t->image && *t->image->command ? ": " : "", t->image ? t->image->command : "");
	fprintf(rp->out, "#%s%s FUNCTION\n", rp->opt.show_duration ? "   DURATION " : "",
		rp->opt.show_tid ? "    TID  " : "");
}

static void on_call(void *ctx, const struct walk_event *e)
{
	struct replay *rp = ctx;
	flush_pending(rp);
	rp->pending = *e;
	rp->have_pending = 1;
}

static void on_exit_event(void *ctx, const struct walk_event *e)
{
	struct replay *rp = ctx;
	const char *note = e->unfinished ? " /* unfinished */" : "";
	if (rp->have_pending && rp->pending.seq == e->seq) {
		rp->have_pending = 0;
		put_prefix(rp, e, 1);
		fprintf(rp->out, "%s();%s\n", e->sym->name, note);
		return;
	}
	flush_pending(rp);
	put_prefix(rp, e, 1);
	fprintf(rp->out, "} /* %s */%s\n", e->sym->name, note);
}

void replay_consumer(struct replay *rp, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = rp;
	c->begin_thread = on_begin_thread;
	c->enter = on_call;
	c->exit = on_exit_event;
}
