/*
 * flame_tree_draw.c - frames of a stack tree (see flame_tree_draw.h).
 */
#include "flame_tree_draw.h"

#include <stdlib.h>
#include <string.h>
#include "call_kind.h"
#include "../utils/array.h"

uint32_t flame_names_index(struct flame_names *t, const struct symbol *s)
{
	void **slot = view_symtab_slot(&t->index, s->id);
	if (!slot)
		return UINT32_MAX;
	if (*slot)
		return (uint32_t)((uintptr_t)*slot - 1);
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 256;
		const struct symbol **syms = realloc(t->syms, cap * sizeof(*syms));
		if (!syms)
			return UINT32_MAX;
		t->syms = syms;
		t->cap = cap;
	}
	t->syms[t->n] = s;
	*slot = (void *)(uintptr_t)(t->n + 1);
	return t->n++;
}

/* A JSON string that is also plain XML text: <, >, & and quotes escaped. */
static void json_xml_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' ||
		    c == '\'')
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}

void flame_names_write(const struct flame_names *t, FILE *out)
{
	fputs("<metadata id=\"fnames\">[", out);
	for (uint32_t i = 0; i < t->n; i++) {
		if (i)
			putc(',', out);
		json_xml_string(out, flame_name(t, t->syms[i]));
	}
	fputs("]</metadata>\n", out);
	/* Calls of other kinds: the colour of each name, for the frames the
	 * script draws when zooming in. */
	uint32_t other = 0;
	for (uint32_t i = 0; i < t->n; i++)
		other += t->syms[i]->kind != CALL_FUNCTION;
	if (!other)
		return;
	fputs("<metadata id=\"fcolors\">[", out);
	for (uint32_t i = 0; i < t->n; i++) {
		char color[16];
		fprintf(out, "%s\"%s\"", i ? "," : "",
			view_symbol_color(t->syms[i], color, sizeof(color)));
	}
	fputs("]</metadata>\n", out);
}

void flame_names_free(struct flame_names *t)
{
	view_symtab_free(&t->index, NULL);
	free(t->syms);
	memset(t, 0, sizeof(*t));
}

void flame_unfinished_text(FILE *out, uint64_t unfinished)
{
	if (unfinished)
		fprintf(out, "%llu unfinished (no recorded end: closed where the trace ends)\n",
			(unsigned long long)unfinished);
}

void flame_frame_label(FILE *out, double x, double w, unsigned y, const char *text)
{
	int chars = (int)((w - 6) / FLAME_CHAR_W);
	if (chars < 3)
		return;
	fprintf(out, "<text x=\"%.3f\" y=\"%u\">", x + 3, y + 11);
	view_xml_text_cut(out, text, (size_t)chars);
	fputs("</text>", out);
}

/* ---- one level: the siblings grouped by function ------------------------- */

struct group {
	const struct symbol *sym;
	uint64_t calls, total_ns, value, unfinished;
	uint32_t first, count; /* its nodes' children: kids[first .. first + count) */
	double width;
	int drawn; /* a frame of its own, else inside a block */
};

struct level {
	struct group *groups;
	size_t ngroups;
	uint32_t *kids; /* the children of every group, group after group */
	size_t nkids;
};

static double node_value(const struct flame_tree_draw *d, const struct stack_tree_node *n)
{
	return d->by_calls ? (double)n->calls : (double)n->total_ns;
}

static size_t group_of(struct level *l, const struct symbol *s)
{
	for (size_t g = l->ngroups; g-- > 0;)
		if (l->groups[g].sym == s)
			return g;
	return SIZE_MAX;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->sym->name, ((const struct group *)b)->sym->name);
}

static int by_weight(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	return x->value < y->value ? 1 : x->value > y->value ? -1 : by_name(a, b);
}

/* Groups `nodes` by function and gathers each group's children. */
static int make_level(const struct flame_tree_draw *d, const uint32_t *nodes, size_t n,
		      struct level *l)
{
	const struct stack_tree_node *tn = d->tree->nodes;
	size_t *of = malloc(n * sizeof(*of));
	l->groups = calloc(n, sizeof(*l->groups));
	if (!of || !l->groups) {
		free(of);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct stack_tree_node *nd = &tn[nodes[i]];
		size_t g = group_of(l, nd->sym);
		if (g == SIZE_MAX) {
			g = l->ngroups++;
			l->groups[g].sym = nd->sym;
		}
		of[i] = g;
		l->groups[g].calls += nd->calls;
		l->groups[g].total_ns += nd->total_ns;
		l->groups[g].unfinished += nd->unfinished;
		l->groups[g].value += (uint64_t)node_value(d, nd);
		for (uint32_t c = nd->first_child; c; c = tn[c].next_sibling)
			l->groups[g].count++;
	}
	if (d->order != FLAME_ORDER_FIRST) {
		/* Sorting moves groups: keep of[] pointing at them by symbol. */
		qsort(l->groups, l->ngroups, sizeof(*l->groups),
		      d->order == FLAME_ORDER_NAME ? by_name : by_weight);
		for (size_t i = 0; i < n; i++)
			of[i] = group_of(l, tn[nodes[i]].sym);
	}
	for (size_t g = 0; g < l->ngroups; g++) {
		l->groups[g].first = (uint32_t)l->nkids;
		l->nkids += l->groups[g].count;
		l->groups[g].count = 0;
	}
	l->kids = malloc((l->nkids ? l->nkids : 1) * sizeof(*l->kids));
	if (!l->kids) {
		free(of);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct group *g = &l->groups[of[i]];
		for (uint32_t c = tn[nodes[i]].first_child; c; c = tn[c].next_sibling)
			l->kids[g->first + g->count++] = c;
	}
	free(of);
	return 0;
}

static unsigned row_y(const struct flame_tree_draw *d, uint32_t depth)
{
	return d->upward ? d->y0 - depth * FLAME_ROW_H : d->y0 + depth * FLAME_ROW_H;
}

static void write_group(struct flame_tree_draw *d, const struct group *g, double x, double w,
			uint32_t depth)
{
	FILE *out = d->out;
	char total[32], avg[32], place[256], color[16], label[64];
	const struct symbol *s = g->sym;
	const char *name = flame_name(d->names, s);
	uint32_t idx = flame_names_index(d->names, s);
	unsigned y = row_y(d, depth);
	fprintf(out, "<g class=\"a\" data-f=\"%u\" data-n=\"%llu\"%s><title>", idx,
		(unsigned long long)g->calls, d->attrs ? d->attrs : "");
	view_xml_text(out, name);
	if (g->calls > 1)
		fprintf(out, " \xc3\x97%llu", (unsigned long long)g->calls);
	fprintf(out, "\n%llu call%s merged \xc2\xb7 total %s \xc2\xb7 average %s\n",
		(unsigned long long)g->calls, g->calls == 1 ? "" : "s",
		view_duration(g->total_ns, total, sizeof(total)),
		view_duration(g->calls ? g->total_ns / g->calls : 0, avg, sizeof(avg)));
	flame_unfinished_text(out, g->unfinished);
	view_xml_text(out, view_source_place(s, place, sizeof(place)));
	fputs(*place ? " \xc2\xb7 " : "", out);
	view_xml_text(out, view_basename(s->module));
	fprintf(out,
		"</title><rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" height=\"%u\" fill=\"%s\"%s/>", x,
		y, w, FLAME_ROW_H - 1, view_symbol_color(s, color, sizeof(color)),
		g->unfinished ? " class=\"unf\"" : "");
	if (g->calls > 1) {
		snprintf(label, sizeof(label), " \xc3\x97%llu", (unsigned long long)g->calls);
		int chars = (int)((w - 6) / FLAME_CHAR_W);
		size_t nl = strlen(name), ll = strlen(label) - 1; /* × is 2 bytes, 1 wide */
		if (chars >= 3 && nl + ll <= (size_t)chars) {
			fprintf(out, "<text x=\"%.3f\" y=\"%u\">", x + 3, y + 11);
			view_xml_text(out, name);
			fprintf(out, "%s</text>", label);
		} else {
			flame_frame_label(out, x, w, y, name);
		}
	} else {
		flame_frame_label(out, x, w, y, name);
	}
	fputs("</g>\n", out);
	d->frames++;
	if (d->placed) {
		struct flame_place p = {.sym = s,
					.depth = depth,
					.x = x,
					.calls = g->calls,
					.total_ns = g->total_ns,
					.unfinished = g->unfinished,
					.own = 1};
		d->placed(d->placed_ctx, &p);
	}
}

/* ---- hatched blocks: functions too narrow to draw ------------------------- */

struct tally {
	const struct symbol *sym;
	uint64_t calls;
};

/* Consecutive groups too narrow to draw, with every call beneath them
 * counted by function. */
struct block {
	double x0, x1;
	uint64_t calls;
	struct tally *top, *all; /* this level's functions; the whole subtree's */
	size_t ntop, nall, cap_top, cap_all;
	struct view_symtab where; /* symbol id -> index in all + 1 */
	uint64_t unfinished;	  /* calls inside without a recorded end */
	struct deeper {
		uint32_t node, depth;
	} * stack;
	size_t cap_stack;
};

static int tally_add(struct tally **t, size_t *n, size_t *cap, const struct symbol *s,
		     uint64_t calls, struct view_symtab *where)
{
	void **slot = where ? view_symtab_slot(where, s->id) : NULL;
	if (slot && *slot) {
		(*t)[(uintptr_t)*slot - 1].calls += calls;
		return 0;
	}
	if (where && !slot)
		return -1;
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		struct tally *g = realloc(*t, c * sizeof(*g));
		if (!g)
			return -1;
		*t = g;
		*cap = c;
	}
	(*t)[*n] = (struct tally){s, calls};
	if (slot)
		*slot = (void *)(uintptr_t)(*n + 1);
	++*n;
	return 0;
}

/* Tells the listener that calls of a function are inside a block. */
static void tell_hidden(struct flame_tree_draw *d, const struct stack_tree_node *n, uint32_t depth,
			double x)
{
	if (!d->placed)
		return;
	struct flame_place p = {.sym = n->sym,
				.depth = depth,
				.x = x,
				.calls = n->calls,
				.total_ns = n->total_ns,
				.unfinished = n->unfinished};
	d->placed(d->placed_ctx, &p);
}

static int push_deeper(struct block *b, size_t *top, uint32_t node, uint32_t depth)
{
	if (!ARRAY_RESERVE(b->stack, *top, b->cap_stack, 64))
		return -1;
	b->stack[(*top)++] = (struct deeper){node, depth};
	return 0;
}

/* Every call beneath the children kids[0 .. n) (at `depth`, in the block
 * from x), counted by function. */
static int tally_subtree(struct flame_tree_draw *d, struct block *b, const uint32_t *kids, size_t n,
			 uint32_t depth, double x)
{
	const struct stack_tree_node *tn = d->tree->nodes;
	size_t top = 0;
	for (size_t i = 0; i < n; i++) {
		if (push_deeper(b, &top, kids[i], depth) < 0)
			return -1;
		while (top) {
			struct deeper at = b->stack[--top];
			const struct stack_tree_node *nd = &tn[at.node];
			b->calls += nd->calls;
			b->unfinished += nd->unfinished;
			if (tally_add(&b->all, &b->nall, &b->cap_all, nd->sym, nd->calls,
				      &b->where) < 0)
				return -1;
			tell_hidden(d, nd, at.depth, x);
			for (uint32_t c = nd->first_child; c; c = tn[c].next_sibling)
				if (push_deeper(b, &top, c, at.depth + 1) < 0)
					return -1;
		}
	}
	return 0;
}

static void block_add(struct flame_tree_draw *d, struct block *b, const struct group *g,
		      const struct level *l, double x, double w, uint32_t depth)
{
	if (!b->ntop)
		b->x0 = x;
	b->x1 = x + w;
	b->calls += g->calls;
	b->unfinished += g->unfinished;
	if (d->placed) {
		struct flame_place p = {.sym = g->sym,
					.depth = depth,
					.x = x,
					.calls = g->calls,
					.total_ns = g->total_ns,
					.unfinished = g->unfinished};
		d->placed(d->placed_ctx, &p);
	}
	if (tally_add(&b->top, &b->ntop, &b->cap_top, g->sym, g->calls, NULL) < 0 ||
	    tally_add(&b->all, &b->nall, &b->cap_all, g->sym, g->calls, &b->where) < 0 ||
	    tally_subtree(d, b, l->kids + g->first, g->count, depth + 1, x) < 0)
		d->failed = 1;
}

static int heavier(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	return x->calls < y->calls   ? 1
	       : x->calls > y->calls ? -1
				     : strcmp(x->sym->name, y->sym->name);
}

/* "a ×5, b ×3, c ×1" for the heaviest of t. */
static void tally_text(FILE *out, const struct flame_names *names, const struct tally *t, size_t n,
		       size_t most)
{
	for (size_t i = 0; i < n && i < most; i++) {
		fputs(i ? ", " : "", out);
		view_xml_text(out, flame_name(names, t[i].sym));
		fprintf(out, " \xc3\x97%llu", (unsigned long long)t[i].calls);
	}
	if (n > most)
		fprintf(out, ", and %zu more", n - most);
}

static void block_label(FILE *out, const struct flame_names *names, const struct block *b, double w,
			unsigned y)
{
	int chars = (int)((w - 6) / FLAME_CHAR_W);
	if (chars < 3)
		return;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return;
	tally_text(m, names, b->top, b->ntop, 3);
	fclose(m);
	fprintf(out, "<text x=\"%.3f\" y=\"%u\">", b->x0 + 3, y + 11);
	/* text is escaped already: cut it by hand, never inside an entity. */
	size_t keep = 0, shown = 0;
	while (keep < len && shown < (size_t)chars) {
		if (text[keep] == '&')
			keep = (size_t)(strchr(text + keep, ';') - text) + 1;
		else
			do
				keep++;
			while (keep < len && (text[keep] & 0xc0) == 0x80);
		shown++;
	}
	fwrite(text, 1, keep, out);
	if (keep < len)
		fputs("..", out);
	fputs("</text>", out);
	free(text);
}

/* One function alone at its level: a frame of its colour, not hatched. */
static void block_head_one(struct flame_tree_draw *d, const struct block *b)
{
	FILE *out = d->out;
	const struct tally *t = &b->top[0];
	fprintf(out, "<g class=\"a\" data-f=\"%u\" data-n=\"%llu\"%s data-c=\"",
		flame_names_index(d->names, t->sym), (unsigned long long)b->calls,
		d->attrs ? d->attrs : "");
}

static void block_head_many(struct flame_tree_draw *d, const struct block *b)
{
	fprintf(d->out, "<g class=\"m\" data-n=\"%llu\"%s data-c=\"", (unsigned long long)b->calls,
		d->attrs ? d->attrs : "");
}

static void block_flush(struct flame_tree_draw *d, struct block *b, uint32_t depth)
{
	FILE *out = d->out;
	char color[16];
	if (!b->ntop)
		return;
	qsort(b->top, b->ntop, sizeof(*b->top), heavier);
	if (b->ntop == 1)
		block_head_one(d, b);
	else
		block_head_many(d, b);
	for (size_t i = 0; i < b->nall; i++) {
		uint32_t idx = flame_names_index(d->names, b->all[i].sym);
		fprintf(out, "%s%u:%llu", i ? "," : "", idx, (unsigned long long)b->all[i].calls);
	}
	if (b->ntop == 1) {
		fputs("\"><title>", out);
		tally_text(out, d->names, b->top, 1, 1);
		fprintf(out, "\n%llu calls, each narrower than %.2g px",
			(unsigned long long)b->top[0].calls, d->min_px);
		if (b->calls > b->top[0].calls)
			fprintf(out, ", and %llu calls beneath them",
				(unsigned long long)(b->calls - b->top[0].calls));
	} else {
		fprintf(out, "\"><title>%llu calls merged: ", (unsigned long long)b->calls);
		tally_text(out, d->names, b->top, b->ntop, 6);
		fprintf(out, "\n%zu functions here, each narrower than %.2g px", b->ntop,
			d->min_px);
	}
	if (b->unfinished)
		fprintf(out, "\n%llu unfinished (no recorded end: closed where the trace ends)",
			(unsigned long long)b->unfinished);
	if (b->nall > b->ntop) {
		/* Every function inside by name, so that each one that ran is named
		 * somewhere the mouse finds it. */
		qsort(b->all, b->nall, sizeof(*b->all), heavier);
		fputs("\nall the calls inside: ", out);
		tally_text(out, d->names, b->all, b->nall, 40);
	}
	unsigned y = row_y(d, depth);
	fprintf(out,
		"\nclick to zoom in</title><rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" "
		"height=\"%u\" fill=\"%s\"%s/>",
		b->x0, y, b->x1 - b->x0, FLAME_ROW_H - 1,
		b->ntop == 1 ? view_symbol_color(b->top[0].sym, color, sizeof(color))
			     : "url(#hatch)",
		b->unfinished ? " class=\"unf\"" : "");
	block_label(out, d->names, b, b->x1 - b->x0, y);
	fputs("</g>\n", out);
	d->blocks++;
	d->block_calls += b->calls;
	if (b->ntop == 1 && d->placed) {
		struct flame_place p = {.sym = b->top[0].sym,
					.depth = depth,
					.x = b->x0,
					.calls = b->top[0].calls,
					.own = 1};
		d->placed(d->placed_ctx, &p);
	}
	for (size_t i = 0; i < b->nall; i++)
		*view_symtab_slot(&b->where, b->all[i].sym->id) = NULL;
	b->ntop = b->nall = 0;
	b->calls = b->unfinished = 0;
}

static void block_free(struct block *b)
{
	free(b->top);
	free(b->all);
	free(b->stack);
	view_symtab_free(&b->where, NULL);
}

static int lighter_first(const void *a, const void *b)
{
	const struct group *x = *(struct group *const *)a, *y = *(struct group *const *)b;
	return x->value < y->value ? 1 : x->value > y->value ? -1 : 0;
}

/*
 * Widths by value; a function too narrow for min_px still gets a frame of
 * min_px of its own, heaviest first, while those frames take at most half
 * the level's width (the others share the rest by value): so that every
 * function that ran shows by name wherever there is room.  The rest are
 * gathered into blocks.
 */
static int set_widths(const struct flame_tree_draw *d, struct level *l, double w)
{
	double sum = 0;
	size_t nnarrow = 0;
	for (size_t g = 0; g < l->ngroups; g++)
		sum += (double)l->groups[g].value;
	double k = sum > 0 ? w / sum : 0;
	for (size_t g = 0; g < l->ngroups; g++) {
		struct group *gr = &l->groups[g];
		gr->width = (double)gr->value * k;
		gr->drawn = gr->width >= d->min_px;
		nnarrow += !gr->drawn;
	}
	size_t room = (size_t)(w * 0.5 / d->min_px);
	if (!nnarrow || !room)
		return 0;
	struct group **narrow = malloc(nnarrow * sizeof(*narrow));
	if (!narrow)
		return -1;
	nnarrow = 0;
	for (size_t g = 0; g < l->ngroups; g++)
		if (!l->groups[g].drawn)
			narrow[nnarrow++] = &l->groups[g];
	qsort(narrow, nnarrow, sizeof(*narrow), lighter_first);
	size_t promoted = nnarrow < room ? nnarrow : room;
	double rest = sum;
	for (size_t i = 0; i < promoted; i++) {
		narrow[i]->drawn = 2;
		rest -= (double)narrow[i]->value;
	}
	free(narrow);
	double k2 = rest > 0 ? (w - (double)promoted * d->min_px) / rest : 0;
	for (size_t g = 0; g < l->ngroups; g++) {
		struct group *gr = &l->groups[g];
		gr->width = gr->drawn == 2 ? d->min_px : (double)gr->value * k2;
	}
	return 0;
}

void flame_tree_draw(struct flame_tree_draw *d, const uint32_t *nodes, size_t n, double x, double w,
		     uint32_t depth)
{
	if (!n || depth >= d->rows)
		return;
	struct level l = {0};
	if (make_level(d, nodes, n, &l) < 0) {
		d->failed = 1;
		free(l.groups);
		return;
	}
	if (set_widths(d, &l, w) < 0)
		d->failed = 1;
	struct block b = {0};
	for (size_t g = 0; g < l.ngroups; g++) {
		const struct group *gr = &l.groups[g];
		double gw = gr->width;
		if (!gr->drawn) {
			block_add(d, &b, gr, &l, x, gw, depth);
		} else {
			block_flush(d, &b, depth);
			write_group(d, gr, x, gw, depth);
			flame_tree_draw(d, l.kids + gr->first, gr->count, x, gw, depth + 1);
		}
		x += gw;
	}
	block_flush(d, &b, depth);
	block_free(&b);
	free(l.groups);
	free(l.kids);
}
