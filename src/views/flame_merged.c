/*
 * flame_merged.c - the classic flame graph as one interactive SVG: the
 * calls of every thread merged by stack (identical stacks are one frame),
 * the outermost at the bottom, the callers under their callees; siblings in
 * alphabetical order or by weight, widths by time or by number of calls.
 * The frames and the script are those of the ordered flame chart
 * (flame_tree_draw.c, flame_doc.c): click to zoom, search, tooltips.
 * Memory is bounded by the number of distinct stacks.  Functions that would
 * show alike (same-named static functions of two files) are told apart as
 * report tells them (view_names.c).
 */
#include <stdlib.h>
#include <string.h>
#include "views.h"
#include "flame_tree_draw.h"

#define FOOT_H 28

struct flame_merged {
	FILE *out;
	struct flame_merged_options opt;
	char *title;
	int failed;
	struct stack_tree tree;
	uint32_t *path;
	uint32_t cap_path, rows;
	uint64_t calls, too_deep;
	struct flame_names names;
	uint32_t kinds; /* 1 << enum trace_call_kind of each kind seen */
};

static void on_call(void *ctx, const struct walk_event *e)
{
	struct flame_merged *fm = ctx;
	fm->kinds |= 1u << (e->sym->kind & 31);
	if (e->depth >= fm->opt.max_rows)
		return;
	if (e->depth >= fm->cap_path) {
		uint32_t cap = fm->cap_path ? fm->cap_path * 2 : 64;
		while (cap <= e->depth)
			cap *= 2;
		uint32_t *p = realloc(fm->path, cap * sizeof(*p));
		if (!p) {
			fm->failed = 1;
			return;
		}
		fm->path = p;
		fm->cap_path = cap;
	}
	uint32_t parent = e->depth ? fm->path[e->depth - 1] : 0;
	uint32_t node =
	    parent || !e->depth ? stack_tree_child(&fm->tree, parent, e->sym->id, e->sym) : 0;
	fm->path[e->depth] = node;
	if (!node) {
		fm->failed = 1;
		return;
	}
	fm->tree.nodes[node].calls++;
	fm->calls++;
	if (e->depth + 1 > fm->rows)
		fm->rows = e->depth + 1;
}

static void on_leave(void *ctx, const struct walk_event *e)
{
	struct flame_merged *fm = ctx;
	if (e->depth >= fm->opt.max_rows) {
		fm->too_deep++;
		return;
	}
	if (e->depth < fm->cap_path && fm->path[e->depth])
		fm->tree.nodes[fm->path[e->depth]].total_ns += e->duration_ns;
}

struct flame_merged *flame_merged_new(FILE *out, const struct trace_reader *r,
				      const struct flame_merged_options *o)
{
	struct flame_merged *fm = calloc(1, sizeof(*fm));
	if (!fm)
		return NULL;
	fm->out = out;
	if (o)
		fm->opt = *o;
	if (!fm->opt.width)
		fm->opt.width = 1200;
	if (fm->opt.min_px <= 0)
		fm->opt.min_px = 1.0;
	if (!fm->opt.max_rows)
		fm->opt.max_rows = 1000;
	if (!fm->opt.title) {
		const char *cmd = r && r->command && *r->command ? r->command : NULL;
		if (asprintf(&fm->title, "Flame graph of %s", cmd ? cmd : "the trace") < 0)
			fm->title = NULL;
		fm->opt.title = fm->title ? fm->title : "Flame graph";
	}
	if (stack_tree_init(&fm->tree) < 0) {
		flame_merged_free(fm);
		return NULL;
	}
	return fm;
}

void flame_merged_consumer(struct flame_merged *fm, struct walk_consumer *c)
{
	memset(c, 0, sizeof(*c));
	c->ctx = fm;
	c->enter = on_call;
	c->exit = on_leave;
}

/* The bottom frame: every call. */
static void write_root(struct flame_merged *fm, double width, unsigned y, uint64_t total)
{
	char t[32];
	fprintf(fm->out, "<g data-n=\"0\"><title>all\n%llu calls", (unsigned long long)fm->calls);
	if (!fm->opt.by_calls)
		fprintf(fm->out, " \xc2\xb7 total %s", view_duration(total, t, sizeof(t)));
	fprintf(fm->out,
		"</title><rect x=\"0\" y=\"%u\" width=\"%.3f\" height=\"%u\" fill=\"#d8d8d8\"/>", y,
		width, FLAME_ROW_H - 1);
	flame_frame_label(fm->out, 0, width, y, "all");
	fputs("</g>\n", fm->out);
}

static void write_document(struct flame_merged *fm)
{
	FILE *out = fm->out;
	unsigned width = fm->opt.width, rows = fm->rows + 1;
	unsigned ch = rows * FLAME_ROW_H + 4, height = FLAME_CHART_TOP + ch + FOOT_H;
	double cw = width - 2 * FLAME_MARGIN;
	char subtitle[200];
	snprintf(
	    subtitle, sizeof(subtitle),
	    "%llu calls, identical stacks merged \xc2\xb7 x: %s, siblings %s \xc2\xb7 y: stack "
	    "depth \xc2\xb7 click a frame to zoom, Esc to reset",
	    (unsigned long long)fm->calls, fm->opt.by_calls ? "number of calls" : "time",
	    fm->opt.by_weight ? "heaviest first" : "in alphabetical order");
	flame_doc_begin(out, width, height, "data-t0=\"0\" data-span=\"1\" data-merged=\"1\"",
			fm->opt.title, subtitle);
	fprintf(out,
		"<svg id=\"chart\" x=\"%u\" y=\"%u\" width=\"%.0f\" height=\"%u\">\n<g "
		"class=\"band\">\n",
		FLAME_MARGIN, FLAME_CHART_TOP, cw, ch);
	size_t n = 0;
	uint64_t total = 0;
	const struct stack_tree_node *tn = fm->tree.nodes;
	for (uint32_t c = tn[0].first_child; c; c = tn[c].next_sibling, n++)
		total += tn[c].total_ns;
	uint32_t *kids = malloc((n ? n : 1) * sizeof(*kids));
	if (!kids) {
		fm->failed = 1;
		return;
	}
	n = 0;
	for (uint32_t c = tn[0].first_child; c; c = tn[c].next_sibling)
		kids[n++] = c;
	unsigned y0 = ch - FLAME_ROW_H;
	write_root(fm, cw, y0, total);
	struct flame_tree_draw d = {.out = out,
				    .tree = &fm->tree,
				    .names = &fm->names,
				    .min_px = fm->opt.min_px,
				    .order =
					fm->opt.by_weight ? FLAME_ORDER_WEIGHT : FLAME_ORDER_NAME,
				    .by_calls = fm->opt.by_calls,
				    .y0 = y0,
				    .upward = 1,
				    .rows = rows,
				    .attrs = ""};
	flame_tree_draw(&d, kids, n, 0, cw, 1);
	free(kids);
	fm->failed |= d.failed;
	fprintf(out,
		"</g>\n</svg>\n<text id=\"status\" class=\"ui\" x=\"%u\" y=\"%u\" fill=\"#555\">"
		"%llu frames, %llu distinct stacks",
		FLAME_MARGIN, FLAME_CHART_TOP + ch + 18, (unsigned long long)(d.frames + d.blocks),
		(unsigned long long)(fm->tree.nnodes - 1));
	if (d.blocks)
		fprintf(out, "; %llu calls of functions narrower than %g px in %llu blocks",
			(unsigned long long)d.block_calls, fm->opt.min_px,
			(unsigned long long)d.blocks);
	if (fm->too_deep)
		fprintf(out, "; %llu calls deeper than %u levels not drawn",
			(unsigned long long)fm->too_deep, fm->opt.max_rows);
	fputs("</text>\n", out);
	flame_doc_legend(out, width, fm->kinds);
	flame_doc_end(out, &fm->names, fm->opt.min_px);
}

/* Every frame's name, told apart where two functions would show alike. */
static void settle_names(struct flame_merged *fm, struct view_shown_names *shown)
{
	const struct symbol **syms = malloc(fm->tree.nnodes * sizeof(*syms));
	size_t n = 0;
	if (!syms)
		return;
	for (uint32_t i = 1; i < fm->tree.nnodes; i++)
		if (fm->tree.nodes[i].sym)
			syms[n++] = fm->tree.nodes[i].sym;
	if (view_shown_names_settle(shown, syms, n) == 0)
		fm->names.shown = shown;
	free(syms);
}

int flame_merged_finish(struct flame_merged *fm)
{
	struct view_shown_names shown = {NULL, 0};
	if (!fm->failed) {
		settle_names(fm, &shown);
		write_document(fm);
	}
	fm->names.shown = NULL;
	view_shown_names_free(&shown);
	return fm->failed ? -1 : 0;
}

void flame_merged_free(struct flame_merged *fm)
{
	if (!fm)
		return;
	stack_tree_free(&fm->tree);
	flame_names_free(&fm->names);
	free(fm->path);
	free(fm->title);
	free(fm);
}
