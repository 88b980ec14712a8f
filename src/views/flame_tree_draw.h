/*
 * flame_tree_draw.h - draws calls aggregated in a stack tree as flame
 * frames: each function of a level is one frame "name ×N" as wide as its
 * share of the time (or calls), its callees beneath it; functions too
 * narrow to draw are gathered into one hatched block that names the
 * heaviest of them and carries the count of every function inside it, so
 * that a search finds them.  Used by the merged frames of the ordered flame
 * chart (flame_svg_merge.c) and by the merged flame graph (flame_merged.c).
 *
 * Functions are numbered in a names table written once into the document
 * (flame_names_write) for the script.
 */
#ifndef CALLTRACE_FLAME_TREE_DRAW_H
#define CALLTRACE_FLAME_TREE_DRAW_H

#include <stdio.h>
#include "stack_tree.h"
#include "view_names.h"
#include "view_util.h"

#define FLAME_ROW_H 16
#define FLAME_CHAR_W 6.6 /* 11px monospace */

/* Function number -> symbol, as the script knows them. */
struct flame_names {
	struct view_symtab index; /* symbol id -> number + 1 */
	const struct symbol **syms;
	uint32_t n, cap;
	/* The names shown, told apart where functions would show alike
	 * (view_names.c); NULL: every symbol's own. */
	const struct view_shown_names *shown;
};
/* The name the frames of s show. */
static inline const char *flame_name(const struct flame_names *t, const struct symbol *s)
{
	return view_shown_name(t ? t->shown : NULL, s);
}
/* The number of s; UINT32_MAX when out of memory. */
uint32_t flame_names_index(struct flame_names *t, const struct symbol *s);
/* <metadata id="fnames">["a","b",...]</metadata> */
void flame_names_write(const struct flame_names *t, FILE *out);
void flame_names_free(struct flame_names *t);

enum flame_order { FLAME_ORDER_FIRST, FLAME_ORDER_NAME, FLAME_ORDER_WEIGHT };

/* Where a function was drawn: a frame of its own (own = 1), or calls of it
 * inside a hatched block (own = 0; x: where the block's group starts). */
struct flame_place {
	const struct symbol *sym;
	uint32_t depth;
	double x;
	uint64_t calls, total_ns, unfinished;
	int own;
};

struct flame_tree_draw {
	FILE *out;
	const struct stack_tree *tree;
	struct flame_names *names;
	double min_px;
	enum flame_order order;
	int by_calls;	   /* widths by number of calls, not time */
	unsigned y0;	   /* top of the row of depth 0 */
	int upward;	   /* deeper rows go up (a classic flame graph) */
	uint32_t rows;	   /* depths at and beyond are not drawn */
	const char *attrs; /* extra attributes of every frame, or "" */
	/* Optional: told of every function placed, in a frame or a block. */
	void (*placed)(void *ctx, const struct flame_place *p);
	void *placed_ctx;
	uint64_t frames;      /* frames written */
	uint64_t blocks;      /* hatched blocks written */
	uint64_t block_calls; /* calls inside them */
	int failed;
};

/* Draws the sibling nodes (of one parent or several) into x .. x + w at
 * `depth`, and everything beneath them. */
void flame_tree_draw(struct flame_tree_draw *d, const uint32_t *nodes, size_t n, double x, double w,
		     uint32_t depth);

/* "k unfinished (...)\n" in a merged frame's title; nothing when k is 0. */
void flame_unfinished_text(FILE *out, uint64_t unfinished);

/* A frame's label, cut to fit w pixels (nothing when under 3 characters). */
void flame_frame_label(FILE *out, double x, double w, unsigned y, const char *text);

/* ---- the document around the frames (flame_doc.c) ----------------------- */
#define FLAME_MARGIN 10
#define FLAME_CHART_TOP 92
/* From <?xml to the controls; `root_attrs` go into the <svg> element. */
void flame_doc_begin(FILE *out, unsigned width, unsigned height, const char *root_attrs,
		     const char *title, const char *subtitle);
/* The colours of the kinds of calls drawn (`kinds`: bit 1 << enum
 * trace_call_kind per kind), top right; nothing when only the program's
 * own functions were. */
void flame_doc_legend(FILE *out, unsigned width, uint32_t kinds);
/* The names table, the script, the tooltip and </svg>. */
void flame_doc_end(FILE *out, const struct flame_names *names, double min_px);

#endif
