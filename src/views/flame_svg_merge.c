/*
 * flame_svg_merge.c - the calls of the ordered flame chart too narrow to
 * draw one by one (see flame_svg_internal.h).
 *
 * Narrow calls come in stretches: the narrow children of one wide call (or
 * a thread's narrow outermost calls), between wide siblings and gaps of a
 * pixel.  Within a stretch, a run of calls of the same function
 * (handle_request, handle_request, ...) that is wide enough together is
 * drawn as one frame "handle_request ×3000" over the time the run took,
 * and the calls it made beneath it merged by stack (stack_tree.h,
 * flame_tree_draw.h), so every level names its functions.  Runs too narrow
 * even together are gathered into one stretch drawn the same way, its
 * functions side by side.
 *
 * So that zooming in shows the calls inside a merged frame, the place of
 * each call of the piece (function, start, duration, depth) travels in the
 * file, bounded: at most DETAIL_PIECE_MAX calls a piece, dropping the
 * deepest levels first, and DETAIL_TOTAL_MAX for the whole chart.  Each
 * costs about 20 bytes, so the file grows by at most about 5 MB, which a
 * browser opens in a second or two; 20000 calls make 17 calls a pixel of a
 * piece zoomed to the chart's width, enough for a few more zooms.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "call_kind.h"
#include "flame_svg_internal.h"

#define DETAIL_PIECE_MAX 20000
#define DETAIL_TOTAL_MAX 250000
#define NONE SIZE_MAX

struct run {
	const struct symbol *sym;
	uint64_t n, first_seq, last_seq, start_ns, end_ns;
	double x0, x1;
};

struct detail {
	uint32_t fn, rel;
	uint64_t start_ns, duration_ns;
};

struct flame_merge {
	struct flame_svg *fs;
	int active;
	uint32_t depth;		      /* of the stretch's outermost calls */
	double last_x1;		      /* where its last outermost call ended */
	struct stack_tree cur, mixed; /* the run going on; runs too narrow before it */
	struct run run, mix;	      /* mix: the span of the narrow runs */
	uint32_t mix_runs;
	uint32_t *path; /* cur's node of each depth below the stretch's */
	size_t *open;	/* det index of the open call of each depth, or NONE */
	uint32_t cap_path;
	struct detail *det; /* the narrow runs' calls, then the current run's */
	size_t ndet, cap_det, mixed_end;
	int32_t keep; /* deepest depth kept in det; -1: none */
	uint64_t budget;
	uint32_t piece;
	struct flame_merge_stats st;
};

struct flame_merge *flame_merge_new(struct flame_svg *fs)
{
	struct flame_merge *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->fs = fs;
	m->keep = INT32_MAX;
	m->budget = DETAIL_TOTAL_MAX;
	if (stack_tree_init(&m->cur) < 0 || stack_tree_init(&m->mixed) < 0) {
		flame_merge_free(m);
		return NULL;
	}
	return m;
}

void flame_merge_free(struct flame_merge *m)
{
	if (!m)
		return;
	stack_tree_free(&m->cur);
	stack_tree_free(&m->mixed);
	free(m->path);
	free(m->open);
	free(m->det);
	free(m);
}

const struct flame_merge_stats *flame_merge_stats(const struct flame_merge *m)
{
	return &m->st;
}

int flame_merge_covers(const struct flame_merge *m, uint32_t depth)
{
	return m->active && depth >= m->depth;
}

/* ---- the places of the calls, for zooming in ------------------------------ */

/* Drops the deepest depth kept, to make room. */
static void detail_drop_deepest(struct flame_merge *m)
{
	uint32_t deepest = 0;
	for (size_t i = 0; i < m->ndet; i++)
		deepest = m->det[i].rel > deepest ? m->det[i].rel : deepest;
	size_t j = 0, mixed_end = m->mixed_end;
	uint32_t r = 0;
	for (size_t i = 0; i < m->ndet; i++) {
		if (i == m->mixed_end)
			mixed_end = j;
		while (r < m->cap_path && (m->open[r] == NONE || m->open[r] < i))
			r++;
		if (m->det[i].rel == deepest) {
			if (r < m->cap_path && m->open[r] == i)
				m->open[r] = NONE;
			continue;
		}
		if (r < m->cap_path && m->open[r] == i)
			m->open[r] = j;
		m->det[j++] = m->det[i];
	}
	m->mixed_end = m->mixed_end >= m->ndet ? j : mixed_end;
	m->ndet = j;
	m->keep = (int32_t)deepest - 1;
}

static void detail_push(struct flame_merge *m, const struct walk_event *e, uint32_t rel)
{
	m->open[rel] = NONE;
	if ((int32_t)rel > m->keep)
		return;
	if (m->ndet >= DETAIL_PIECE_MAX) {
		detail_drop_deepest(m);
		if ((int32_t)rel > m->keep || m->ndet >= DETAIL_PIECE_MAX)
			return;
	}
	if (m->ndet == m->cap_det) {
		size_t cap = m->cap_det ? m->cap_det * 2 : 1024;
		struct detail *d = realloc(m->det, cap * sizeof(*d));
		if (!d)
			return;
		m->det = d;
		m->cap_det = cap;
	}
	uint32_t fn = flame_names_index(&m->fs->names, e->sym);
	if (fn == UINT32_MAX)
		return;
	m->open[rel] = m->ndet;
	m->det[m->ndet++] = (struct detail){.fn = fn, .rel = rel, .start_ns = e->start_ns};
}

/* Writes the places of det[a .. b) for the script, as many depths as fit. */
static void write_detail(struct flame_merge *m, size_t a, size_t b, unsigned y, int cut)
{
	FILE *out = m->fs->out;
	uint64_t room = m->budget < DETAIL_PIECE_MAX ? m->budget : DETAIL_PIECE_MAX;
	uint32_t levels = 0;
	for (size_t i = a; i < b; i++)
		levels = m->det[i].rel + 1 > levels ? m->det[i].rel + 1 : levels;
	uint64_t *count = calloc(levels + 1, sizeof(*count));
	if (!count || b - a < 2) {
		free(count);
		return;
	}
	for (size_t i = a; i < b; i++)
		count[m->det[i].rel]++;
	uint64_t n = 0;
	uint32_t keep = 0;
	for (; keep < levels && n + count[keep] <= room; keep++)
		n += count[keep];
	free(count);
	if (keep == 0) {
		m->st.detail_cut++;
		return;
	}
	cut |= keep < levels;
	m->st.detail_cut += cut != 0;
	uint64_t base = m->det[a].start_ns;
	fprintf(out, "<g class=\"det\" data-p=\"%u\" data-y=\"%u\" data-t=\"%llu\"%s data-d=\"",
		m->piece, y, (unsigned long long)(base - m->fs->t0), cut ? " data-cut=\"1\"" : "");
	int first = 1;
	for (size_t i = a; i < b; i++) {
		const struct detail *d = &m->det[i];
		if (d->rel >= keep)
			continue;
		fprintf(out, "%s%u,%llu,%llu,%u", first ? "" : ";", d->fn,
			(unsigned long long)(d->start_ns - base),
			(unsigned long long)d->duration_ns, d->rel);
		first = 0;
	}
	fputs("\"/>\n", out);
	m->budget -= n;
	m->st.detail_calls += n;
}

/* ---- drawing the pieces ---------------------------------------------------- */

static void draw_tree(struct flame_merge *m, struct stack_tree *t, uint32_t parent, double x,
		      double w, uint32_t depth, const char *attrs)
{
	struct flame_svg *fs = m->fs;
	size_t n = 0;
	for (uint32_t c = t->nodes[parent].first_child; c; c = t->nodes[c].next_sibling)
		n++;
	uint32_t *kids = malloc((n ? n : 1) * sizeof(*kids));
	if (!kids) {
		fs->failed = 1;
		return;
	}
	n = 0;
	for (uint32_t c = t->nodes[parent].first_child; c; c = t->nodes[c].next_sibling)
		kids[n++] = c;
	struct flame_tree_draw d = {.out = fs->out,
				    .tree = t,
				    .names = &fs->names,
				    .min_px = fs->opt.min_px,
				    .order = FLAME_ORDER_FIRST,
				    .y0 = flame_svg_row_y(fs, 0),
				    .rows = fs->bands[fs->band - 1].rows,
				    .attrs = attrs,
				    .placed = flame_own_placed,
				    .placed_ctx = fs->own};
	flame_own_piece(fs->own, m->piece);
	flame_tree_draw(&d, kids, n, x, w, depth);
	free(kids);
	fs->failed |= d.failed;
}

static void write_run_frame(struct flame_merge *m, const struct run *r,
			    const struct stack_tree_node *top, const char *attrs)
{
	struct flame_svg *fs = m->fs;
	FILE *out = fs->out;
	char start[32], span[32], total[32], place[256], color[16], label[300];
	const struct symbol *s = r->sym;
	unsigned y = flame_svg_row_y(fs, m->depth);
	double w = r->x1 - r->x0;
	fprintf(out, "<g class=\"a\" data-f=\"%u\" data-n=\"%llu\"%s><title>",
		flame_names_index(&fs->names, s), (unsigned long long)r->n, attrs);
	view_xml_text(out, flame_name(&fs->names, s));
	fprintf(out,
		" \xc3\x97%llu\n%llu calls in a row: #%llu to #%llu \xc2\xb7 start %s \xc2\xb7 "
		"span %s \xc2\xb7 total %s\n",
		(unsigned long long)r->n, (unsigned long long)r->n,
		(unsigned long long)r->first_seq, (unsigned long long)r->last_seq,
		view_duration(r->start_ns - m->fs->t0, start, sizeof(start)),
		view_duration(r->end_ns - r->start_ns, span, sizeof(span)),
		view_duration(top->total_ns, total, sizeof(total)));
	flame_unfinished_text(out, top->unfinished);
	view_xml_text(out, view_source_place(s, place, sizeof(place)));
	fputs(*place ? " \xc2\xb7 " : "", out);
	view_xml_text(out, view_basename(s->module));
	fprintf(out,
		"\nclick to zoom in: the calls inside are drawn at the new scale</title>"
		"<rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" height=\"%u\" fill=\"%s\"%s/>",
		r->x0, y, w, FLAME_ROW_H - 1, view_symbol_color(s, color, sizeof(color)),
		top->unfinished ? " class=\"unf\"" : "");
	snprintf(label, sizeof(label), "%s \xc3\x97%llu", flame_name(&fs->names, s),
		 (unsigned long long)r->n);
	flame_frame_label(out, r->x0, w, y, label);
	fputs("</g>\n", out);
	fs->frames++;
	flame_own_shown(fs->own, s);
}

/* A run drawn as one frame with its callees merged beneath it; tree t
 * holds it (its one outermost node). */
static void draw_run(struct flame_merge *m, const struct run *r, struct stack_tree *t, size_t a,
		     size_t b)
{
	struct flame_svg *fs = m->fs;
	char attrs[32];
	uint32_t top = t->nodes[0].first_child;
	if (!top)
		return;
	snprintf(attrs, sizeof(attrs), " data-p=\"%u\"", ++m->piece);
	write_detail(m, a, b, flame_svg_row_y(fs, m->depth), m->keep != INT32_MAX);
	if (r->n == 1)
		flame_svg_write_frame(fs, r->sym, m->depth, r->first_seq, r->start_ns,
				      r->end_ns - r->start_ns, t->nodes[top].unfinished != 0,
				      attrs);
	else
		write_run_frame(m, r, &t->nodes[top], attrs);
	draw_tree(m, t, top, r->x0, r->x1 - r->x0, m->depth + 1, attrs);
	m->st.pieces++;
	for (uint32_t i = 1; i < t->nnodes; i++)
		m->st.calls += t->nodes[i].calls;
}

/* Draws the narrow runs gathered so far, as one piece. */
static void flush_mixed(struct flame_merge *m)
{
	if (!m->mix_runs)
		return;
	if (m->mix_runs == 1) {
		draw_run(m, &m->mix, &m->mixed, 0, m->mixed_end);
	} else {
		char attrs[32];
		snprintf(attrs, sizeof(attrs), " data-p=\"%u\"", ++m->piece);
		write_detail(m, 0, m->mixed_end, flame_svg_row_y(m->fs, m->depth),
			     m->keep != INT32_MAX);
		draw_tree(m, &m->mixed, 0, m->mix.x0, m->mix.x1 - m->mix.x0, m->depth, attrs);
		m->st.pieces++;
		for (uint32_t i = 1; i < m->mixed.nnodes; i++)
			m->st.calls += m->mixed.nodes[i].calls;
	}
	stack_tree_reset(&m->mixed);
	m->mix_runs = 0;
	memmove(m->det, m->det + m->mixed_end, (m->ndet - m->mixed_end) * sizeof(*m->det));
	m->ndet -= m->mixed_end;
	m->mixed_end = 0;
	if (!m->ndet)
		m->keep = INT32_MAX;
}

/* The run going on has ended: drawn alone when wide enough, else gathered. */
static void close_run(struct flame_merge *m)
{
	struct run *r = &m->run;
	if (!r->n)
		return;
	if (r->x1 - r->x0 >= m->fs->opt.min_px) {
		flush_mixed(m);
		draw_run(m, r, &m->cur, 0, m->ndet);
		m->ndet = m->mixed_end = 0;
		m->keep = INT32_MAX;
	} else {
		if (stack_tree_merge(&m->mixed, 0, &m->cur, 0) < 0)
			m->fs->failed = 1;
		if (!m->mix_runs++)
			m->mix = *r;
		else {
			m->mix.x1 = r->x1;
			m->mix.n += r->n;
			m->mix.last_seq = r->last_seq;
			m->mix.end_ns = r->end_ns;
		}
		m->mixed_end = m->ndet;
	}
	stack_tree_reset(&m->cur);
	r->n = 0;
}

void flame_merge_end(struct flame_merge *m)
{
	if (!m->active)
		return;
	close_run(m);
	flush_mixed(m);
	m->ndet = m->mixed_end = 0;
	m->keep = INT32_MAX;
	m->active = 0;
}

/* ---- the stream ------------------------------------------------------------- */

static int room_for_depth(struct flame_merge *m, uint32_t rel)
{
	if (rel < m->cap_path)
		return 1;
	uint32_t cap = m->cap_path ? m->cap_path : 64;
	while (cap <= rel)
		cap *= 2;
	uint32_t *path = realloc(m->path, cap * sizeof(*path));
	if (path)
		m->path = path;
	size_t *open = realloc(m->open, cap * sizeof(*open));
	if (open)
		m->open = open;
	if (!path || !open)
		return 0;
	for (uint32_t i = m->cap_path; i < cap; i++)
		m->open[i] = NONE;
	m->cap_path = cap;
	return 1;
}

/* An outermost call of the stretch: continues the run or starts one. */
static void enter_outermost(struct flame_merge *m, const struct walk_event *e)
{
	struct flame_svg *fs = m->fs;
	double x = (double)(e->start_ns - fs->t0) * fs->scale;
	if (m->active && (e->depth != m->depth || x - m->last_x1 >= fs->opt.min_px))
		flame_merge_end(m);
	if (!m->active) {
		m->active = 1;
		m->depth = e->depth;
	}
	struct run *r = &m->run;
	if (r->n && r->sym != e->sym)
		close_run(m);
	if (!r->n)
		*r = (struct run){
		    .sym = e->sym, .first_seq = e->seq, .start_ns = e->start_ns, .x0 = x, .x1 = x};
	r->n++;
	r->last_seq = e->seq;
	uint32_t node = stack_tree_child(&m->cur, 0, e->sym->id, e->sym);
	if (!node) {
		fs->failed = 1;
		return;
	}
	m->cur.nodes[node].calls++;
	m->path[0] = node;
	detail_push(m, e, 0);
}

void flame_merge_enter(struct flame_merge *m, const struct walk_event *e)
{
	uint32_t rel = m->active && e->depth > m->depth ? e->depth - m->depth : 0;
	if (!room_for_depth(m, rel)) {
		m->fs->failed = 1;
		return;
	}
	if (!rel) {
		enter_outermost(m, e);
		return;
	}
	uint32_t node = stack_tree_child(&m->cur, m->path[rel - 1], e->sym->id, e->sym);
	if (!node) {
		m->fs->failed = 1;
		return;
	}
	m->cur.nodes[node].calls++;
	m->path[rel] = node;
	detail_push(m, e, rel);
}

void flame_merge_exit(struct flame_merge *m, const struct walk_event *e)
{
	struct flame_svg *fs = m->fs;
	uint32_t rel = e->depth - m->depth;
	if (rel >= m->cap_path)
		return;
	m->cur.nodes[m->path[rel]].total_ns += e->duration_ns;
	m->cur.nodes[m->path[rel]].unfinished += e->unfinished != 0;
	if (m->open[rel] != NONE && m->open[rel] < m->ndet)
		m->det[m->open[rel]].duration_ns = e->duration_ns;
	m->open[rel] = NONE;
	if (rel)
		return;
	struct run *r = &m->run;
	r->end_ns = e->end_ns > r->end_ns ? e->end_ns : r->end_ns;
	r->x1 = fmax(r->x1, (double)(e->end_ns - fs->t0) * fs->scale);
	m->last_x1 = r->x1;
}
