/*
 * flame_svg_internal.h - what the two halves of the ordered flame chart
 * share: flame_svg.c (the document, the walks, the frames wide enough to
 * draw one by one) and flame_svg_merge.c (calls too narrow to draw, merged
 * into named frames).
 */
#ifndef CALLTRACE_FLAME_SVG_INTERNAL_H
#define CALLTRACE_FLAME_SVG_INTERNAL_H

#include "views.h"
#include "flame_tree_draw.h"

struct band {
	uint64_t calls;
	uint32_t rows; /* deepest depth drawn + 1 */
	uint64_t first_ns, last_ns;
	uint64_t *wide; /* sequence numbers of the calls wide enough to draw alone, sorted */
	size_t nwide, cap_wide;
};

struct flame_merge;
struct flame_own;

struct flame_svg {
	FILE *out;
	struct flame_svg_options opt;
	uint32_t kinds; /* 1 << enum trace_call_kind of each kind seen */
	char *title;	/* the default title, owned */
	int failed;
	struct band *bands;
	size_t nbands, cap_bands;
	size_t band;	     /* the band being drawn (+ 1) */
	int skip;	     /* the thread being drawn has no band */
	size_t wide_at;	     /* next of the band's wide calls */
	double width, scale; /* chart pixels, pixels per ns */
	uint64_t t0, span;
	unsigned y; /* top of the band being drawn */
	struct flame_names names;
	/* The functions the chart draws, found by the measuring walk, and the
	 * names that tell apart those that would show alike. */
	struct view_symtab seen; /* symbol id -> 1 */
	const struct symbol **drawn;
	size_t ndrawn, cap_drawn;
	struct view_shown_names shown;
	struct flame_merge *merge;
	struct flame_own *own;
	uint64_t frames, too_deep;
};

/* The y of a depth's row in the band being drawn. */
unsigned flame_svg_row_y(const struct flame_svg *fs, uint32_t depth);
/* One call drawn alone; `attrs` (may be "") goes into its <g>.  `unfinished`:
 * FLAME_UNFINISHED and FLAME_BEFORE (entered before a ring's kept calls). */
enum { FLAME_UNFINISHED = 1, FLAME_BEFORE = 2 };
void flame_svg_write_frame(struct flame_svg *fs, const struct symbol *s, uint32_t depth,
			   uint64_t seq, uint64_t start_ns, uint64_t duration_ns, int unfinished,
			   const char *attrs);

/* ---- flame_svg_merge.c ---------------------------------------------------- */
struct flame_merge_stats {
	uint64_t calls;	       /* calls drawn merged */
	uint64_t pieces;       /* runs and mixed stretches drawn */
	uint64_t detail_calls; /* calls whose own place travels in the file */
	uint64_t detail_cut;   /* pieces whose deeper calls did not fit */
};
struct flame_merge *flame_merge_new(struct flame_svg *fs);
/* Whether a call at `depth` belongs to the stretch of merged calls open now. */
int flame_merge_covers(const struct flame_merge *m, uint32_t depth);
/* A call too narrow to draw alone begins or ends. */
void flame_merge_enter(struct flame_merge *m, const struct walk_event *e);
void flame_merge_exit(struct flame_merge *m, const struct walk_event *e);
/* The stretch of merged calls ends (its parent ends, a wide sibling begins,
 * the thread ends): draws what is left. */
void flame_merge_end(struct flame_merge *m);
const struct flame_merge_stats *flame_merge_stats(const struct flame_merge *m);
void flame_merge_free(struct flame_merge *m);

/* ---- flame_svg_own.c -------------------------------------------------------- */
/* Every function that ran gets a frame of its own in its band: those seen
 * only inside merged blocks get one at the place of their heaviest calls,
 * drawn on top when the band ends. */
struct flame_own *flame_own_new(struct flame_svg *fs);
/* The merged piece being drawn (its data-p), for the places that follow. */
void flame_own_piece(struct flame_own *o, uint32_t piece);
/* A flame_tree_draw listener (ctx: the flame_own). */
void flame_own_placed(void *ctx, const struct flame_place *p);
/* A function drawn in a frame of its own outside flame_tree_draw. */
void flame_own_shown(struct flame_own *o, const struct symbol *s);
/* The band ends: the frames still missing are drawn. */
void flame_own_end_band(struct flame_own *o);
uint64_t flame_own_added(const struct flame_own *o);
void flame_own_free(struct flame_own *o);

#endif
