/*
 * flame_svg.c - the ordered flame chart as one self-contained interactive
 * SVG: x is time (the order calls happened), y is call depth, one band per
 * thread labelled "pid N tid M name".  Click a frame to zoom to it, search
 * by regex or text, hover for a tooltip with the call's sequence number,
 * start time, duration and file:line (flame_svg_script.c has the script).
 * Time starts at the first call: the axis and the start times read from
 * there, not from the start of the recording (an engine's setup before the
 * first call is no part of the chart).
 *
 * It takes three walks.  The first measures: the session's time span and
 * the depth of each thread.  The second notes the calls wide enough to draw
 * one by one (at most the chart's width in pixels for each depth, so their
 * number is bounded by the chart, not the trace).  The third draws,
 * streaming: a wide call is written when it exits; the narrow ones are
 * merged into named frames by flame_svg_merge.c as they come.  The
 * measuring walk also notes the functions drawn, so that those that would
 * show alike are told apart as report tells them (view_names.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "flame_svg_internal.h"
#include "../utils/array.h"
#include "call_kind.h"
#include "view_util.h"

#define MARGIN FLAME_MARGIN
#define CHART_TOP FLAME_CHART_TOP
#define ROW_H FLAME_ROW_H
#define BAND_HEAD_H 20
#define BAND_GAP 10
#define FOOT_H 28

/* ---- the measuring walk --------------------------------------------------- */

static void measure_begin(void *ctx, const struct walk_thread *t)
{
	struct flame_svg *fs = ctx;
	(void)t;
	if (!ARRAY_RESERVE(fs->bands, fs->nbands, fs->cap_bands, 16)) {
		fs->failed = 1;
		return;
	}
	fs->bands[fs->nbands++] = (struct band){.first_ns = UINT64_MAX};
}

/* A function the chart draws, noted once. */
static void note_drawn(struct flame_svg *fs, const struct symbol *s)
{
	void **slot = view_symtab_slot(&fs->seen, s->id);
	if (!slot || *slot)
		return;
	if (!ARRAY_RESERVE(fs->drawn, fs->ndrawn, fs->cap_drawn, 256))
		return; /* then it shows its own name */
	*slot = (void *)1;
	fs->drawn[fs->ndrawn++] = s;
}

static void measure_exit(void *ctx, const struct walk_event *e)
{
	struct flame_svg *fs = ctx;
	if (!fs->nbands)
		return;
	struct band *b = &fs->bands[fs->nbands - 1];
	b->calls++;
	fs->kinds |= 1u << (e->sym->kind & 31);
	note_drawn(fs, e->sym);
	if (e->depth < fs->opt.max_rows && e->depth + 1 > b->rows)
		b->rows = e->depth + 1;
	if (e->start_ns < b->first_ns)
		b->first_ns = e->start_ns;
	if (e->end_ns > b->last_ns)
		b->last_ns = e->end_ns;
}

/* ---- the walk that finds the wide calls ------------------------------------ */

static void wide_begin(void *ctx, const struct walk_thread *t)
{
	struct flame_svg *fs = ctx;
	(void)t;
	fs->band++;
}

static void wide_exit(void *ctx, const struct walk_event *e)
{
	struct flame_svg *fs = ctx;
	if (fs->band > fs->nbands)
		return;
	struct band *b = &fs->bands[fs->band - 1];
	if (e->depth >= b->rows || (double)e->duration_ns * fs->scale < fs->opt.min_px)
		return;
	if (!ARRAY_RESERVE(b->wide, b->nwide, b->cap_wide, 64)) {
		fs->failed = 1;
		return;
	}
	b->wide[b->nwide++] = e->seq;
}

static int by_seq(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void wide_end(void *ctx, const struct walk_thread *t)
{
	struct flame_svg *fs = ctx;
	(void)t;
	if (fs->band > fs->nbands)
		return;
	struct band *b = &fs->bands[fs->band - 1];
	if (b->nwide) /* none: wide may be NULL, which qsort must not get */
		qsort(b->wide, b->nwide, sizeof(*b->wide), by_seq);
}

/* ---- writing frames --------------------------------------------------------- */

unsigned flame_svg_row_y(const struct flame_svg *fs, uint32_t depth)
{
	return fs->y + BAND_HEAD_H + depth * ROW_H;
}

void flame_svg_write_frame(struct flame_svg *fs, const struct symbol *s, uint32_t depth,
			   uint64_t seq, uint64_t start_ns, uint64_t duration_ns, int unfinished,
			   const char *attrs)
{
	FILE *out = fs->out;
	char start[32], dur[32], place[256], color[16];
	double x = (double)(start_ns - fs->t0) * fs->scale;
	double w = (double)duration_ns * fs->scale;
	unsigned y = flame_svg_row_y(fs, depth);
	fprintf(out, "<g%s><title>", attrs);
	view_xml_text(out, flame_name(&fs->names, s));
	fprintf(out, "\ncall #%llu \xc2\xb7 start %s \xc2\xb7 duration %s%s%s\n",
		(unsigned long long)seq, view_duration(start_ns - fs->t0, start, sizeof(start)),
		view_duration(duration_ns, dur, sizeof(dur)),
		unfinished & FLAME_BEFORE ? " (entered before the kept calls)" : "",
		unfinished & FLAME_UNFINISHED ? " (unfinished)" : "");
	view_xml_text(out, view_source_place(s, place, sizeof(place)));
	fputs(*place ? " \xc2\xb7 " : "", out);
	view_xml_text(out, view_basename(s->module));
	fprintf(out,
		"</title><rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" height=\"%u\" fill=\"%s\"%s/>", x,
		y, w, ROW_H - 1, view_symbol_color(s, color, sizeof(color)),
		unfinished & FLAME_UNFINISHED ? " class=\"unf\"" : "");
	flame_frame_label(out, x, w, y, flame_name(&fs->names, s));
	fputs("</g>\n", out);
	fs->frames++;
	flame_own_shown(fs->own, s);
}

/* ---- the drawing walk -------------------------------------------------------- */

static void draw_begin(void *ctx, const struct walk_thread *t)
{
	struct flame_svg *fs = ctx;
	char label[256];
	const struct band *b = fs->band < fs->nbands ? &fs->bands[fs->band] : NULL;
	fs->band++;
	fs->wide_at = 0;
	fs->skip = !b || !b->calls;
	if (fs->skip)
		return;
	const char *cmd = t->image && t->image->command ? t->image->command : "";
	fprintf(fs->out,
		"<g class=\"band\"><rect class=\"bh\" x=\"0\" y=\"%u\" width=\"%.0f\" "
		"height=\"%u\"/><text class=\"bl\" x=\"4\" y=\"%u\">",
		fs->y, fs->width, BAND_HEAD_H - 2, fs->y + 13);
	view_xml_text(fs->out, view_thread_label(t, label, sizeof(label)));
	if (*cmd) {
		fputs(" \xc2\xb7 ", fs->out);
		view_xml_text_cut(fs->out, cmd, 80);
	}
	fprintf(fs->out, " \xc2\xb7 %llu calls</text>\n", (unsigned long long)b->calls);
}

static void draw_enter(void *ctx, const struct walk_event *e)
{
	struct flame_svg *fs = ctx;
	if (fs->skip)
		return;
	const struct band *b = &fs->bands[fs->band - 1];
	if (e->depth >= b->rows)
		return;
	int wide = fs->wide_at < b->nwide && b->wide[fs->wide_at] == e->seq;
	fs->wide_at += wide;
	int inside = e->depth > 0 && flame_merge_covers(fs->merge, e->depth - 1);
	if (wide && !inside) {
		flame_merge_end(fs->merge); /* narrow siblings before it */
		return;			    /* drawn when it exits */
	}
	flame_merge_enter(fs->merge, e);
}

static void draw_exit(void *ctx, const struct walk_event *e)
{
	struct flame_svg *fs = ctx;
	if (fs->skip)
		return;
	if (e->depth >= fs->bands[fs->band - 1].rows) {
		fs->too_deep++;
		return;
	}
	if (flame_merge_covers(fs->merge, e->depth)) {
		flame_merge_exit(fs->merge, e);
		return;
	}
	flame_merge_end(fs->merge); /* the narrow children of this call */
	flame_svg_write_frame(
	    fs, e->sym, e->depth, e->seq, e->start_ns, e->duration_ns,
	    (e->unfinished ? FLAME_UNFINISHED : 0) | (e->entered_before ? FLAME_BEFORE : 0), "");
}

static void draw_end(void *ctx, const struct walk_thread *t)
{
	struct flame_svg *fs = ctx;
	(void)t;
	if (fs->skip)
		return;
	const struct band *b = &fs->bands[fs->band - 1];
	flame_merge_end(fs->merge);
	flame_own_end_band(fs->own); /* on top of the band's frames */
	fputs("</g>\n", fs->out);
	fs->y += BAND_HEAD_H + b->rows * ROW_H + BAND_GAP;
}

/* ---- the document ------------------------------------------------------------ */

static unsigned chart_height(const struct flame_svg *fs)
{
	unsigned h = 0;
	for (size_t i = 0; i < fs->nbands; i++)
		if (fs->bands[i].calls)
			h += BAND_HEAD_H + fs->bands[i].rows * ROW_H + BAND_GAP;
	return h ? h : ROW_H;
}

static void time_span(struct flame_svg *fs, uint64_t *calls, size_t *threads)
{
	uint64_t first = UINT64_MAX, last = 0;
	*calls = 0;
	*threads = 0;
	for (size_t i = 0; i < fs->nbands; i++) {
		const struct band *b = &fs->bands[i];
		if (!b->calls)
			continue;
		*calls += b->calls;
		++*threads;
		first = b->first_ns < first ? b->first_ns : first;
		last = b->last_ns > last ? b->last_ns : last;
	}
	fs->t0 = first == UINT64_MAX ? 0 : first;
	fs->span = last > fs->t0 ? last - fs->t0 : 1;
	fs->scale = fs->width / (double)fs->span;
}

static void write_head(struct flame_svg *fs)
{
	uint64_t calls;
	size_t threads;
	time_span(fs, &calls, &threads);
	unsigned width = fs->opt.width, ch = chart_height(fs);
	unsigned height = CHART_TOP + ch + FOOT_H;
	char span[32], attrs[64], subtitle[200];
	snprintf(attrs, sizeof(attrs), "data-t0=\"%llu\" data-span=\"%llu\"",
		 (unsigned long long)fs->t0, (unsigned long long)fs->span);
	snprintf(
	    subtitle, sizeof(subtitle),
	    "%llu calls in %zu thread%s over %s \xc2\xb7 x: time, y: call depth \xc2\xb7 click "
	    "a frame to zoom, Esc to reset",
	    (unsigned long long)calls, threads, threads == 1 ? "" : "s",
	    view_duration(fs->span, span, sizeof(span)));
	flame_doc_begin(fs->out, width, height, attrs, fs->opt.title, subtitle);
	fprintf(fs->out, "<svg id=\"chart\" x=\"%u\" y=\"%u\" width=\"%.0f\" height=\"%u\">\n",
		FLAME_MARGIN, FLAME_CHART_TOP, fs->width, ch);
}

static void write_tail(struct flame_svg *fs)
{
	FILE *out = fs->out;
	unsigned foot = CHART_TOP + chart_height(fs) + 18;
	fputs("</svg>\n", out);
	fprintf(out, "<text id=\"status\" class=\"ui\" x=\"%u\" y=\"%u\" fill=\"#555\">%llu frames",
		MARGIN, foot, (unsigned long long)fs->frames);
	const struct flame_merge_stats *ms = flame_merge_stats(fs->merge);
	if (ms->calls)
		fprintf(out,
			" drawn; %llu calls narrower than %g px merged by function into %llu "
			"pieces (click one to see its calls)",
			(unsigned long long)ms->calls, fs->opt.min_px,
			(unsigned long long)ms->pieces);
	if (flame_own_added(fs->own))
		fprintf(out,
			"; %llu functions seen only inside merged blocks drawn over them at "
			"%g px",
			(unsigned long long)flame_own_added(fs->own), fs->opt.min_px);
	if (fs->too_deep)
		fprintf(out, ", %llu calls deeper than %u levels not drawn",
			(unsigned long long)fs->too_deep, fs->opt.max_rows);
	fputs("</text>\n", out);
	flame_doc_legend(out, fs->opt.width, fs->kinds);
	flame_doc_end(out, &fs->names, fs->opt.min_px);
}

/* ---- the interface ------------------------------------------------------------ */

struct flame_svg *flame_svg_new(FILE *out, const struct trace_reader *r,
				const struct flame_svg_options *o)
{
	struct flame_svg *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	fs->out = out;
	if (o)
		fs->opt = *o;
	if (!fs->opt.width)
		fs->opt.width = 1200;
	if (fs->opt.width < 300)
		fs->opt.width = 300;
	if (fs->opt.min_px <= 0)
		fs->opt.min_px = 1.0;
	if (!fs->opt.max_rows)
		fs->opt.max_rows = 1000;
	if (!fs->opt.title) {
		const char *cmd = r && r->command && *r->command ? r->command : NULL;
		if (asprintf(&fs->title, "Flame chart of %s", cmd ? cmd : "the trace") < 0)
			fs->title = NULL;
		fs->opt.title = fs->title ? fs->title : "Flame chart";
	}
	fs->width = fs->opt.width - 2 * MARGIN;
	fs->merge = flame_merge_new(fs);
	fs->own = flame_own_new(fs);
	if (!fs->merge || !fs->own) {
		flame_svg_free(fs);
		return NULL;
	}
	return fs;
}

void flame_svg_measure_consumer(struct flame_svg *fs, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = fs;
	c->begin_thread = measure_begin;
	c->exit = measure_exit;
}

void flame_svg_wide_consumer(struct flame_svg *fs, struct walk_consumer *c)
{
	uint64_t calls;
	size_t threads;
	time_span(fs, &calls, &threads);
	if (view_shown_names_settle(&fs->shown, fs->drawn, fs->ndrawn) == 0)
		fs->names.shown = &fs->shown;
	memset(c, 0, sizeof(*c));
	c->ctx = fs;
	c->begin_thread = wide_begin;
	c->exit = wide_exit;
	c->end_thread = wide_end;
	fs->band = 0;
}

void flame_svg_draw_consumer(struct flame_svg *fs, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = fs;
	c->begin_thread = draw_begin;
	c->enter = draw_enter;
	c->exit = draw_exit;
	c->end_thread = draw_end;
	write_head(fs);
	fs->band = 0;
	fs->y = 0;
}

int flame_svg_finish(struct flame_svg *fs)
{
	write_tail(fs);
	return fs->failed ? -1 : 0;
}

void flame_svg_free(struct flame_svg *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->nbands; i++)
		free(fs->bands[i].wide);
	free(fs->bands);
	flame_merge_free(fs->merge);
	flame_own_free(fs->own);
	flame_names_free(&fs->names);
	view_symtab_free(&fs->seen, NULL);
	free(fs->drawn);
	view_shown_names_free(&fs->shown);
	free(fs->title);
	free(fs);
}
