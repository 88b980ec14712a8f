/*
 * flame_svg_own.c - a frame of its own for every function that ran, in
 * the ordered flame chart (see flame_svg_internal.h).
 *
 * Where the calls of a level are narrower than a pixel even merged (a
 * stretch between two wide siblings is often a fraction of a pixel), a
 * function may be drawn nowhere but inside hatched blocks, and whether it
 * is depends on the recorded timing.  So every band remembers, for each
 * function, whether it got a frame of its own and, if not, the place of
 * its heaviest calls inside a block (the most time: the place where it
 * came closest to a frame).  When the band ends, each function still
 * without a frame gets one there, MINPX wide, drawn on top of the band:
 * it covers under a pixel of its neighbours, whatever the timing.  Its
 * calls are counted in the block beneath it already, so the frame says so
 * (data-o) and the search does not count them twice.  Frames on one row
 * are moved apart so that they never cover each other.
 */
#include <stdlib.h>
#include <string.h>
#include "call_kind.h"
#include "flame_svg_internal.h"
#include "../utils/array.h"

struct own_entry {
	const struct symbol *sym;
	int shown;
	uint32_t piece, depth;
	double x;
	uint64_t calls, total_ns, unfinished;
};

struct flame_own {
	struct flame_svg *fs;
	uint32_t piece;		  /* the merged piece being drawn, 0: none */
	struct view_symtab index; /* symbol id -> entries + 1, this band */
	struct own_entry *entries;
	size_t n, cap;
	uint64_t drawn; /* frames added, every band */
};

struct flame_own *flame_own_new(struct flame_svg *fs)
{
	struct flame_own *o = calloc(1, sizeof(*o));
	if (o)
		o->fs = fs;
	return o;
}

void flame_own_free(struct flame_own *o)
{
	if (!o)
		return;
	view_symtab_free(&o->index, NULL);
	free(o->entries);
	free(o);
}

void flame_own_piece(struct flame_own *o, uint32_t piece)
{
	o->piece = piece;
}

uint64_t flame_own_added(const struct flame_own *o)
{
	return o->drawn;
}

static struct own_entry *entry_of(struct flame_own *o, const struct symbol *s)
{
	void **slot = view_symtab_slot(&o->index, s->id);
	if (!slot)
		return NULL;
	if (*slot)
		return &o->entries[(uintptr_t)*slot - 1];
	if (!ARRAY_RESERVE(o->entries, o->n, o->cap, 64))
		return NULL;
	o->entries[o->n] = (struct own_entry){.sym = s};
	*slot = (void *)(uintptr_t)(o->n + 1);
	return &o->entries[o->n++];
}

void flame_own_placed(void *ctx, const struct flame_place *p)
{
	struct flame_own *o = ctx;
	struct own_entry *e = entry_of(o, p->sym);
	if (!e) {
		o->fs->failed = 1;
		return;
	}
	if (p->own) {
		e->shown = 1;
		return;
	}
	if (e->shown || !o->piece || (e->calls && p->total_ns <= e->total_ns))
		return;
	e->piece = o->piece;
	e->depth = p->depth;
	e->x = p->x;
	e->calls = p->calls;
	e->total_ns = p->total_ns;
	e->unfinished = p->unfinished;
}

void flame_own_shown(struct flame_own *o, const struct symbol *s)
{
	struct flame_place p = {.sym = s, .own = 1};
	flame_own_placed(o, &p);
}

static int by_row_then_x(const void *a, const void *b)
{
	const struct own_entry *x = *(struct own_entry *const *)a,
			       *y = *(struct own_entry *const *)b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->x < y->x ? -1 : x->x > y->x;
}

/* Frames of one row [a, b), sorted by x: apart, and inside the chart. */
static void spread_row(struct own_entry **e, size_t a, size_t b, double min_px, double width)
{
	for (size_t i = a + 1; i < b; i++)
		if (e[i]->x < e[i - 1]->x + min_px)
			e[i]->x = e[i - 1]->x + min_px;
	double limit = width - min_px;
	for (size_t i = b; i-- > a; limit -= min_px) {
		if (e[i]->x > limit)
			e[i]->x = limit;
		if (e[i]->x < 0)
			e[i]->x = 0;
		limit = e[i]->x;
	}
}

static void write_own_frame(struct flame_own *o, const struct own_entry *e)
{
	struct flame_svg *fs = o->fs;
	FILE *out = fs->out;
	char total[32], avg[32], place[256], color[16];
	const struct symbol *s = e->sym;
	double w = fs->opt.min_px;
	fprintf(out,
		"<g class=\"a\" data-f=\"%u\" data-n=\"%llu\" data-o=\"1\" data-p=\"%u\"><title>",
		flame_names_index(&fs->names, s), (unsigned long long)e->calls, e->piece);
	view_xml_text(out, flame_name(&fs->names, s));
	fprintf(out,
		" \xc3\x97%llu\n%llu call%s here, each narrower than %.2g px and counted in the "
		"merged block beneath: drawn over its neighbours so that every function has a "
		"frame \xc2\xb7 total %s \xc2\xb7 average %s\n",
		(unsigned long long)e->calls, (unsigned long long)e->calls,
		e->calls == 1 ? "" : "s", fs->opt.min_px,
		view_duration(e->total_ns, total, sizeof(total)),
		view_duration(e->calls ? e->total_ns / e->calls : 0, avg, sizeof(avg)));
	flame_unfinished_text(out, e->unfinished);
	view_xml_text(out, view_source_place(s, place, sizeof(place)));
	fputs(*place ? " \xc2\xb7 " : "", out);
	view_xml_text(out, view_basename(s->module));
	fprintf(out,
		"\nclick to zoom in</title><rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" height=\"%u\" "
		"fill=\"%s\"%s/>",
		e->x, flame_svg_row_y(fs, e->depth), w, FLAME_ROW_H - 1,
		view_symbol_color(s, color, sizeof(color)), e->unfinished ? " class=\"unf\"" : "");
	flame_frame_label(out, e->x, w, flame_svg_row_y(fs, e->depth), flame_name(&fs->names, s));
	fputs("</g>\n", out);
	fs->frames++;
	o->drawn++;
}

void flame_own_end_band(struct flame_own *o)
{
	size_t n = 0;
	struct own_entry **missing = malloc((o->n ? o->n : 1) * sizeof(*missing));
	if (!missing) {
		o->fs->failed = 1;
		return;
	}
	for (size_t i = 0; i < o->n; i++)
		if (!o->entries[i].shown && o->entries[i].calls)
			missing[n++] = &o->entries[i];
	qsort(missing, n, sizeof(*missing), by_row_then_x);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && missing[b]->depth == missing[a]->depth; b++)
			;
		spread_row(missing, a, b, o->fs->opt.min_px, o->fs->width);
	}
	for (size_t i = 0; i < n; i++)
		write_own_frame(o, missing[i]);
	free(missing);
	for (size_t i = 0; i < o->n; i++)
		*view_symtab_slot(&o->index, o->entries[i].sym->id) = NULL;
	o->n = 0;
	o->piece = 0;
}
