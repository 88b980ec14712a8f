/*
 * speedscope_json.c - speedscope's file format: one evented profile per
 * thread ("O" open / "C" close events, `at` never decreasing), frames shared
 * by every profile.  Events are streamed; the frame list (one entry per
 * distinct function) is written at the end, which JSON allows.  A library
 * call's frame is named with its library ("read@libc.so.6"), a system
 * call's after "[syscall] ", as replay names them; off-CPU intervals are
 * frames of their own ("off-cpu:blocked").  Calls entered before a ring's
 * kept calls have a frame of their own, "main (entered before the kept
 * calls)"; an unfinished call cannot be told (its frame is chosen at its
 * open event, before its end is known): it closes at the thread's end.
 */
#include <stdlib.h>
#include <string.h>
#include "call_kind.h"
#include "views.h"
#include "../utils/array.h"
#include "view_util.h"

struct speedscope_frame {
	const struct symbol *sym;
	int before; /* of calls entered before a ring's kept calls */
};

struct speedscope_json {
	FILE *out;
	int failed;
	size_t nprofiles;
	const struct walk_thread *thread; /* the thread being walked */
	int first_event;		  /* its profile has not started yet */
	uint64_t first_at, last_at;
	/* symbol id -> frame index + 1: of calls, of calls entered before a
	 * ring's kept calls (a frame of their own, named so) */
	struct view_symtab frame_of, before_frame_of;
	struct speedscope_frame *frames; /* frame index -> what it shows */
	size_t nframes, cap_frames;
};

static uint32_t frame_index(struct speedscope_json *sj, const struct symbol *s, int before)
{
	void **slot = view_symtab_slot(before ? &sj->before_frame_of : &sj->frame_of, s->id);
	if (!slot) {
		sj->failed = 1;
		return 0;
	}
	if (*slot)
		return (uint32_t)(uintptr_t)*slot - 1;
	if (!ARRAY_RESERVE(sj->frames, sj->nframes, sj->cap_frames, 256)) {
		sj->failed = 1;
		return 0;
	}
	sj->frames[sj->nframes] = (struct speedscope_frame){s, before};
	*slot = (void *)(uintptr_t)(sj->nframes + 1);
	return (uint32_t)sj->nframes++;
}

/* A thread's profile starts with its first event: a thread that shows no
 * call has none. */
static void begin_thread(void *ctx, const struct walk_thread *t)
{
	struct speedscope_json *sj = ctx;
	sj->thread = t;
	sj->first_event = 1;
	sj->first_at = sj->last_at = 0;
}

static void begin_profile(struct speedscope_json *sj)
{
	char label[256];
	view_thread_label(sj->thread, label, sizeof(label));
	fputs(sj->nprofiles++ ? ",\n{" : "{", sj->out);
	fputs("\"type\":\"evented\",\"name\":", sj->out);
	view_json_string(sj->out, label);
	fputs(",\"unit\":\"nanoseconds\",\"events\":[\n", sj->out);
}

static void event(struct speedscope_json *sj, char type, const struct walk_event *e, uint64_t at)
{
	uint32_t frame = frame_index(sj, e->sym, e->entered_before);
	if (sj->first_event) {
		begin_profile(sj);
		sj->first_at = sj->last_at = at;
		sj->first_event = 0;
	} else {
		fputs_unlocked(",\n", sj->out);
	}
	if (at < sj->last_at)
		at = sj->last_at; /* never backwards, whatever the clock did */
	sj->last_at = at;
	fputs_unlocked(type == 'O' ? "{\"type\":\"O\",\"frame\":" : "{\"type\":\"C\",\"frame\":",
		       sj->out);
	view_put_u64(sj->out, frame);
	fputs_unlocked(",\"at\":", sj->out);
	view_put_u64(sj->out, at);
	putc_unlocked('}', sj->out);
}

static void on_call(void *ctx, const struct walk_event *e)
{
	event(ctx, 'O', e, e->start_ns);
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	event(ctx, 'C', e, e->end_ns);
}

static void end_thread(void *ctx, const struct walk_thread *t)
{
	struct speedscope_json *sj = ctx;
	(void)t;
	if (sj->first_event)
		return;
	fprintf(sj->out, "\n],\"startValue\":%llu,\"endValue\":%llu}",
		(unsigned long long)sj->first_at, (unsigned long long)sj->last_at);
}

struct speedscope_json *speedscope_json_new(FILE *out, const struct trace_reader *r)
{
	struct speedscope_json *sj = calloc(1, sizeof(*sj));
	if (!sj)
		return NULL;
	sj->out = out;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
	      "\"exporter\":\"calltrace\",\"name\":",
	      out);
	view_json_string(out, r && r->command && *r->command ? r->command : "calltrace");
	fputs(",\"activeProfileIndex\":0,\n\"profiles\":[\n", out);
	return sj;
}

void speedscope_json_consumer(struct speedscope_json *sj, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = sj;
	c->begin_thread = begin_thread;
	c->enter = on_call;
	c->exit = on_leave;
	c->end_thread = end_thread;
}

static void write_frame(FILE *out, const struct speedscope_frame *f)
{
	const struct symbol *s = f->sym;
	char name[512], marked[600];
	snprintf(marked, sizeof(marked), "%s%s", view_kind_shown_name(s, name, sizeof(name)),
		 f->before ? " (entered before the kept calls)" : "");
	fputs("{\"name\":", out);
	view_json_string(out, marked);
	if (s->file && *s->file) {
		fputs(",\"file\":", out);
		view_json_string(out, s->file);
		if (s->line)
			fprintf(out, ",\"line\":%u", s->line);
	}
	putc('}', out);
}

int speedscope_json_finish(struct speedscope_json *sj)
{
	fputs("\n],\n\"shared\":{\"frames\":[\n", sj->out);
	for (size_t i = 0; i < sj->nframes; i++) {
		if (i)
			fputs(",\n", sj->out);
		write_frame(sj->out, &sj->frames[i]);
	}
	fputs("\n]}}\n", sj->out);
	return sj->failed ? -1 : 0;
}

void speedscope_json_free(struct speedscope_json *sj)
{
	if (!sj)
		return;
	view_symtab_free(&sj->frame_of, NULL);
	view_symtab_free(&sj->before_frame_of, NULL);
	free(sj->frames);
	free(sj);
}
