/*
 * callgraph_svg.c - the call graph as SVG.  When graphviz's `dot` is on
 * PATH it lays out the dot text of callgraph_dot.c; otherwise a simple
 * layered layout of our own: one column per call depth (the shallowest
 * depth a function was called at), functions of one module kept together
 * in a shaded group, curved edges labelled with calls and time.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "callgraph_model.h"

#define MARGIN 20
#define TOP 76
#define COL_GAP 110
#define NODE_H 48
#define NODE_GAP 14
#define GROUP_HEAD 18
#define GROUP_GAP 12
#define CHAR_W 6.2

struct placed {
	double x, y, w;
};

/* ---- graphviz ---------------------------------------------------------------- */

static int dot_on_path(void)
{
	const char *path = getenv("PATH");
	char file[4096];
	while (path && *path) {
		size_t len = strcspn(path, ":");
		if (len && len < sizeof(file) - 5) {
			snprintf(file, sizeof(file), "%.*s/dot", (int)len, path);
			if (access(file, X_OK) == 0)
				return 1;
		}
		path += len + (path[len] == ':');
	}
	return 0;
}

/* Feeds the dot text to `dot -Tsvg`, its output going to `out`. */
static int run_dot(const struct callgraph *g, FILE *out)
{
	int fds[2];
	fflush(out);
	if (pipe(fds) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fds[0], 0);
		dup2(fileno(out), 1);
		close(fds[0]);
		close(fds[1]);
		execlp("dot", "dot", "-Tsvg", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	FILE *to = fdopen(fds[1], "w");
	if (!to) {
		close(fds[1]);
	} else {
		callgraph_write_dot(g, to);
		fclose(to);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return to && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* ---- our own layout -------------------------------------------------------------- */

static double node_width(const struct callgraph *g, const struct cg_node *n)
{
	char place[256], stats[192];
	size_t len = strlen(cg_node_name(g, n));
	size_t p = strlen(view_source_place(n->sym, place, sizeof(place)));
	size_t s = strlen(cg_node_stats(n, stats, sizeof(stats)));
	len = len > p ? len : p;
	len = len > s ? len : s;
	if (len > 48)
		len = 48;
	return len * CHAR_W + 16;
}

/* Nodes of one column, ordered by module then by first appearance. */
static int by_column_module(const void *a, const void *b, void *ctx)
{
	const struct callgraph *g = ctx;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct cg_node *x = &g->nodes[i], *y = &g->nodes[j];
	if (x->min_depth != y->min_depth)
		return x->min_depth < y->min_depth ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* Places every node, columns left to right, groups top to bottom; returns
 * the picture's size through w and h. */
static void layout(const struct callgraph *g, struct placed *pl, uint32_t *order, double *w,
		   double *h)
{
	for (uint32_t i = 0; i < g->nnodes; i++)
		order[i] = i;
	qsort_r(order, g->nnodes, sizeof(*order), by_column_module, (void *)g);
	double x = MARGIN, maxy = TOP;
	uint32_t start = 0;
	while (start < g->nnodes) {
		uint32_t col = g->nodes[order[start]].min_depth, end = start;
		double colw = 0, y = TOP;
		while (end < g->nnodes && g->nodes[order[end]].min_depth == col) {
			double nw = node_width(g, &g->nodes[order[end]]);
			colw = nw > colw ? nw : colw;
			end++;
		}
		uint32_t module = UINT32_MAX;
		for (uint32_t k = start; k < end; k++) {
			const struct cg_node *n = &g->nodes[order[k]];
			if (n->module != module) {
				y += (module == UINT32_MAX ? 0 : GROUP_GAP) + GROUP_HEAD;
				module = n->module;
			}
			pl[order[k]] = (struct placed){.x = x, .y = y, .w = colw};
			y += NODE_H + NODE_GAP;
		}
		maxy = y > maxy ? y : maxy;
		x += colw + COL_GAP;
		start = end;
	}
	*w = x - COL_GAP + MARGIN + 60;
	*h = maxy + 60;
}

static void group_boxes(const struct callgraph *g, const struct placed *pl, const uint32_t *order,
			FILE *out)
{
	char color[16];
	for (uint32_t k = 0; k < g->nnodes;) {
		const struct cg_node *first = &g->nodes[order[k]];
		uint32_t end = k;
		while (end < g->nnodes && g->nodes[order[end]].min_depth == first->min_depth &&
		       g->nodes[order[end]].module == first->module)
			end++;
		const struct placed *a = &pl[order[k]], *z = &pl[order[end - 1]];
		const char *name = view_basename(g->modules[first->module]);
		fprintf(out,
			"<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"6\" "
			"fill=\"%s\" stroke=\"#aaa\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
			"class=\"group\">",
			a->x - 6, a->y - GROUP_HEAD, a->w + 12,
			z->y + NODE_H - a->y + GROUP_HEAD + 6,
			view_group_color(name, color, sizeof(color)), a->x, a->y - 5);
		view_xml_text(out, name);
		fputs("</text>\n", out);
		k = end;
	}
}

/* A point of the cubic Bezier curve p0 c1 c2 p3 at t. */
static double bezier(double p0, double c1, double c2, double p3, double t)
{
	double u = 1 - t;
	return u * u * u * p0 + 3 * u * u * t * c1 + 3 * u * t * t * c2 + t * t * t * p3;
}

/* Forward edges go from the caller's right side to the callee's left side;
 * edges within a column arc out to the right; edges back to a shallower
 * column leave from the left.  The label sits near the arrow head, where
 * edges into one column no longer overlap. */
static void edge(const struct placed *pl, const struct cg_edge *e, FILE *out)
{
	char label[96];
	const struct placed *a = &pl[e->caller], *b = &pl[e->callee];
	double x1, y1 = a->y + NODE_H / 2.0, x2, y2 = b->y + NODE_H / 2.0, c1x, c2x;
	double c1y = y1, c2y = y2;
	const char *anchor = "end";
	if (b->x > a->x) {
		x1 = a->x + a->w;
		x2 = b->x;
		c1x = x1 + COL_GAP / 2.0;
		c2x = x2 - COL_GAP / 2.0;
	} else if (b->x == a->x) {
		x1 = a->x + a->w;
		x2 = b->x + b->w;
		double bulge = e->caller == e->callee ? 40 : 30 + fabs(y2 - y1) / 8;
		c1x = x1 + bulge;
		c2x = x2 + bulge;
		if (e->caller == e->callee) {
			y1 -= 8;
			y2 += 8;
			c1y = y1 - 14;
			c2y = y2 + 14;
		}
		anchor = "start";
	} else {
		x1 = a->x;
		x2 = b->x + b->w;
		c1x = x1 - COL_GAP / 2.0;
		c2x = x2 + COL_GAP / 2.0;
		anchor = "start";
	}
	fprintf(out,
		"<g class=\"edge\"><path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
		"marker-end=\"url(#arrow)\"/>",
		x1, y1, c1x, c1y, c2x, c2y, x2, y2);
	double t = b->x == a->x ? 0.5 : 0.85;
	double lx = bezier(x1, c1x, c2x, x2, t), ly = bezier(y1, c1y, c2y, y2, t);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text></g>\n",
		lx + (*anchor == 's' ? 4 : -4), ly - 3, anchor,
		cg_edge_label(e, ", ", label, sizeof(label)));
}

static void node(const struct callgraph *g, const struct placed *p, const struct cg_node *n,
		 FILE *out)
{
	char place[256], stats[192], color[16];
	size_t chars = (size_t)((p->w - 16) / CHAR_W);
	fputs("<g class=\"node\"><title>", out);
	view_xml_text(out, cg_node_name(g, n));
	fprintf(out,
		"</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%u\" rx=\"5\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
		"class=\"name\">",
		p->x, p->y, p->w, NODE_H, view_heat_color(cg_node_heat(g, n), color, sizeof(color)),
		p->x + 8, p->y + 15);
	view_xml_text_cut(out, cg_node_name(g, n), chars);
	fprintf(out, "</text><text x=\"%.1f\" y=\"%.1f\">", p->x + 8, p->y + 29);
	view_xml_text_cut(out, view_source_place(n->sym, place, sizeof(place)), chars);
	fprintf(out, "</text><text x=\"%.1f\" y=\"%.1f\">", p->x + 8, p->y + 42);
	view_xml_text_cut(out, cg_node_stats(n, stats, sizeof(stats)), chars);
	fputs("</text></g>\n", out);
}

static int write_own_svg(const struct callgraph *g, FILE *out)
{
	struct placed *pl = calloc(g->nnodes ? g->nnodes : 1, sizeof(*pl));
	uint32_t *order = calloc(g->nnodes ? g->nnodes : 1, sizeof(*order));
	double w, h;
	if (!pl || !order) {
		free(pl);
		free(order);
		return -1;
	}
	layout(g, pl, order, &w, &h);
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\">\n"
		"<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
		"markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 "
		"z\" fill=\"#555\"/></marker></defs>\n"
		"<style>svg{font-family:'DejaVu Sans',Verdana,sans-serif;font-size:10px}"
		".node rect{stroke:#555}.name{font-weight:bold}.group{fill:#444;font-size:11px;"
		"font-weight:bold}.edge path{fill:none;stroke:#555;stroke-width:1.2}"
		".edge text{fill:#333;font-size:9px}</style>\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text x=\"%d\" y=\"28\" font-size=\"15\" font-weight=\"bold\">call graph</text>"
		"<text x=\"%d\" y=\"44\" fill=\"#555\">%u functions, %u caller/callee pairs; "
		"columns: call depth; colour: time spent (blue: little, red: most)</text>\n",
		w, h, w, h, MARGIN, MARGIN, g->nnodes, g->nedges);
	char note[300];
	if (*callgraph_fold_note(g, note, sizeof(note))) {
		fprintf(out, "<text x=\"%d\" y=\"60\" fill=\"#805\">", MARGIN);
		view_xml_text(out, note);
		fputs("</text>\n", out);
	}
	group_boxes(g, pl, order, out);
	for (uint32_t i = 0; i < g->nedges; i++)
		edge(pl, &g->edges[i], out);
	for (uint32_t i = 0; i < g->nnodes; i++)
		node(g, &pl[i], &g->nodes[i], out);
	fputs("</svg>\n", out);
	free(pl);
	free(order);
	return 0;
}

int callgraph_write_svg(const struct callgraph *g, FILE *out, int use_dot, int *used_dot)
{
	*used_dot = use_dot && dot_on_path();
	if (*used_dot)
		return run_dot(g, out);
	return write_own_svg(g, out);
}
