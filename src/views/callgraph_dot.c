/*
 * callgraph_dot.c - the call graph as graphviz dot: functions as boxes
 * coloured by how much time they take, clustered by module
 * (subgraph cluster_N labelled with the module's base name), edges
 * caller -> callee labelled with the number of calls and their time.
 * Library calls are ellipses in their library's cluster, system calls and
 * off-CPU intervals hexagons in the kernel's ("[kernel]"); `--kind` hides
 * the kinds not asked for.
 */
#include "callgraph_model.h"
#include "call_kind.h"

/* A dot string: quotes and backslashes escaped. */
static void quoted_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putc('\\', out);
		putc(*s == '\n' ? ' ' : *s, out);
	}
}

static void node(const struct callgraph *g, uint32_t i, FILE *out)
{
	const struct cg_node *n = &g->nodes[i];
	char place[256], stats[192], color[16];
	fprintf(out, "    n%u [label=\"", i);
	quoted_text(out, cg_node_name(g, n));
	view_source_place(n->sym, place, sizeof(place));
	if (*place) {
		fputs("\\n", out);
		quoted_text(out, place);
	}
	fputs("\\n", out);
	quoted_text(out, cg_node_stats(n, stats, sizeof(stats)));
	fprintf(out, "\", fillcolor=\"%s\"%s];\n",
		view_heat_color(cg_node_heat(g, n), color, sizeof(color)),
		n->sym->kind == CALL_FUNCTION  ? ""
		: n->sym->kind == CALL_LIBRARY ? ", shape=ellipse"
					       : ", shape=hexagon");
}

int callgraph_write_dot(const struct callgraph *g, FILE *out)
{
	char label[96], color[16], note[300];
	fputs("digraph calltrace {\n"
	      "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=12, nodesep=0.3, "
	      "ranksep=0.5];\n",
	      out);
	if (*callgraph_fold_note(g, note, sizeof(note))) {
		fputs("  label=\"", out);
		quoted_text(out, note);
		fputs("\";\n  labelloc=t;\n", out);
	}
	fputs("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", "
	      "fontsize=10];\n"
	      "  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n",
	      out);
	for (uint32_t m = 0; m < g->nmodules; m++) {
		fprintf(out, "  subgraph cluster_%u {\n    label=\"", m);
		quoted_text(out, view_basename(g->modules[m]));
		fprintf(out,
			"\";\n    style=\"rounded,filled\"; fillcolor=\"%s\"; color=\"#999999\";\n",
			view_group_color(view_basename(g->modules[m]), color, sizeof(color)));
		for (uint32_t i = 0; i < g->nnodes; i++)
			if (g->nodes[i].module == m)
				node(g, i, out);
		fputs("  }\n", out);
	}
	for (uint32_t i = 0; i < g->nedges; i++) {
		const struct cg_edge *e = &g->edges[i];
		fprintf(out, "  n%u -> n%u [label=\"%s\"];\n", e->caller, e->callee,
			cg_edge_label(e, "\\n", label, sizeof(label)));
	}
	fputs("}\n", out);
	return 0;
}
