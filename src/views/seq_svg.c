/*
 * seq_svg.c - the sequence diagram drawn as SVG by calltrace itself:
 * participant boxes over dashed lifelines, solid call arrows labelled
 * "f()", dashed return arrows, loops for calls within one participant,
 * activation bars, a band per thread and a note where --max-calls cut.
 */
#include <stdlib.h>
#include <string.h>
#include "seq_model.h"
#include "../utils/array.h"

#define TOP 34
#define HEAD_H 34
#define ROW_H 26
#define SECTION_H 34
#define CUT_H 30
#define MARGIN 16
#define BAR_W 10
#define CHAR_W 7

struct layout {
	unsigned colw, width, height;
};

static unsigned center(const struct layout *l, uint32_t part)
{
	return MARGIN + l->colw * part + l->colw / 2;
}

static unsigned row_height(enum seq_msg_kind kind)
{
	return kind == SEQ_SECTION		     ? SECTION_H
	       : kind == SEQ_CUT || kind == SEQ_NOTE ? CUT_H
						     : ROW_H;
}

static struct layout measure(const struct seq_model *m)
{
	size_t longest = 0;
	for (uint32_t i = 0; i < m->nparts; i++)
		if (strlen(m->parts[i].label) > longest)
			longest = strlen(m->parts[i].label);
	struct layout l;
	l.colw = (unsigned)(longest * CHAR_W + 40);
	if (l.colw < 150)
		l.colw = 150;
	if (l.colw > 280)
		l.colw = 280;
	l.width = 2 * MARGIN + l.colw * (m->nparts ? m->nparts : 1);
	l.height = TOP + HEAD_H + 20;
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		l.height += row_height(msg->kind);
		/* The label of a self-message stands right of its loop. */
		if (msg->kind == SEQ_CALL && msg->from == msg->to) {
			unsigned right = center(&l, msg->to) + 46 +
					 (unsigned)strlen(msg->text) * CHAR_W + MARGIN;
			l.width = right > l.width ? right : l.width;
		}
	}
	return l;
}

static void header(const struct seq_model *m, const struct layout *l, FILE *out)
{
	fprintf(
	    out,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
	    "viewBox=\"0 0 %u %u\" font-family=\"DejaVu Sans, Verdana, sans-serif\" "
	    "font-size=\"12\">\n"
	    "<defs>\n"
	    "<marker id=\"call\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
	    "markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" "
	    "fill=\"#333\"/></marker>\n"
	    "<marker id=\"ret\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" "
	    "markerHeight=\"8\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10\" fill=\"none\" "
	    "stroke=\"#555\"/></marker>\n"
	    "</defs>\n"
	    "<style>.call{stroke:#333;fill:none}.ret{stroke:#777;fill:none;"
	    "stroke-dasharray:5,3}.life{stroke:#aaa;stroke-dasharray:4,4}"
	    ".bar{fill:#fdf2d0;stroke:#b08a30}.lbl{fill:#111}</style>\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n"
	    "<text x=\"%u\" y=\"20\" font-size=\"14\" font-weight=\"bold\">Sequence diagram "
	    "\xc2\xb7 ",
	    l->width, l->height, l->width, l->height, MARGIN);
	view_xml_text(out, m->title);
	fputs("</text>\n", out);
	for (uint32_t i = 0; i < m->nparts; i++) {
		unsigned x = center(l, i);
		fprintf(out, "<line class=\"life\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\"/>\n", x,
			TOP + HEAD_H, x, l->height - 10);
		fprintf(out,
			"<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"4\" "
			"fill=\"#eaf1fb\" stroke=\"#4a6fa5\"/>\n",
			x - (l->colw - 20) / 2, TOP, l->colw - 20, HEAD_H - 6);
		fprintf(out, "<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" font-weight=\"bold\">",
			x, TOP + HEAD_H / 2 + 1);
		view_xml_text_cut(out, m->parts[i].label, (l->colw - 28) / CHAR_W);
		fputs("</text>\n", out);
	}
}

/* Activation bars first, so that the arrows are drawn over them. */
static int activation_bars(const struct seq_model *m, const struct layout *l, FILE *out)
{
	unsigned **open = calloc(m->nparts, sizeof(*open)); /* start y of each open bar */
	unsigned *nopen = calloc(m->nparts, sizeof(*nopen));
	unsigned *cap = calloc(m->nparts, sizeof(*cap));
	int ret = open && nopen && cap ? 0 : -1;
	unsigned y = TOP + HEAD_H;
	for (size_t i = 0; i < m->nmsgs && ret == 0; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		y += row_height(msg->kind);
		uint32_t p = msg->kind == SEQ_CALL ? msg->to : msg->from;
		if (msg->kind == SEQ_CALL) {
			if (!ARRAY_RESERVE(open[p], nopen[p], cap[p], 8)) {
				ret = -1;
				break;
			}
			open[p][nopen[p]++] = y - 6;
		} else if (msg->kind == SEQ_RETURN && nopen[p]) {
			unsigned level = --nopen[p];
			unsigned x = center(l, p) - BAR_W / 2 + (level % 6) * 4;
			fprintf(
			    out,
			    "<rect class=\"bar\" x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\"/>\n",
			    x, open[p][level], BAR_W, y - 6 - open[p][level]);
		}
	}
	if (open)
		for (uint32_t p = 0; p < m->nparts; p++)
			free(open[p]);
	free(open);
	free(nopen);
	free(cap);
	return ret;
}

static void band(const struct layout *l, FILE *out, unsigned y, unsigned h, const char *fill,
		 const char *text)
{
	fprintf(out,
		"<rect x=\"4\" y=\"%u\" width=\"%u\" height=\"%u\" fill=\"%s\" stroke=\"#999\"/>\n"
		"<text x=\"%u\" y=\"%u\" text-anchor=\"middle\" font-weight=\"bold\">",
		y + 6, l->width - 8, h - 12, fill, l->width / 2, y + h / 2 + 4);
	view_xml_text(out, text);
	fputs("</text>\n", out);
}

static void arrow(const struct layout *l, FILE *out, const struct seq_msg *msg, unsigned y)
{
	int call = msg->kind == SEQ_CALL;
	unsigned from = center(l, msg->from), to = center(l, msg->to);
	const char *cls = call ? "call" : "ret";
	const char *marker = call ? "call" : "ret";
	if (call) {
		fputs("<g><title>", out);
		view_xml_text(out, msg->text);
		fprintf(out, " call #%llu</title>", (unsigned long long)msg->seq);
	}
	if (msg->from == msg->to) {
		fprintf(out,
			"<path class=\"%s\" d=\"M%u,%u h36 v10 h-31\" marker-end=\"url(#%s)\"/>",
			cls, from + BAR_W / 2, y - 14, marker);
		if (call) {
			fprintf(out, "<text class=\"lbl\" x=\"%u\" y=\"%u\">", from + 46, y - 5);
			view_xml_text(out, msg->text);
			fputs("</text>", out);
		}
	} else {
		int right = to > from;
		unsigned x1 = right ? from + BAR_W / 2 : from - BAR_W / 2;
		unsigned x2 = right ? to - BAR_W / 2 : to + BAR_W / 2;
		fprintf(out,
			"<line class=\"%s\" x1=\"%u\" y1=\"%u\" x2=\"%u\" y2=\"%u\" "
			"marker-end=\"url(#%s)\"/>",
			cls, x1, y - 6, x2, y - 6, marker);
		if (call) {
			fprintf(out, "<text class=\"lbl\" x=\"%u\" y=\"%u\">",
				(right ? x1 : x2) + 6, y - 10);
			view_xml_text(out, msg->text);
			fputs("</text>", out);
		}
	}
	fputs(call ? "</g>\n" : "\n", out);
}

int seq_write_svg(const struct seq_model *m, FILE *out)
{
	char buf[400];
	struct layout l = measure(m);
	header(m, &l, out);
	if (activation_bars(m, &l, out) < 0)
		return -1;
	unsigned y = TOP + HEAD_H;
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		unsigned h = row_height(msg->kind);
		switch (msg->kind) {
		case SEQ_SECTION:
			band(&l, out, y, h, "#e8e8e8", msg->text);
			break;
		case SEQ_CUT:
			band(&l, out, y, h, "#fff6c8", seq_cut_text(m, msg, buf, sizeof(buf)));
			break;
		case SEQ_NOTE:
			band(&l, out, y, h, "#e4f4e4", msg->text);
			break;
		case SEQ_CALL:
		case SEQ_RETURN:
			arrow(&l, out, msg, y + h);
			break;
		}
		y += h;
	}
	fputs("</svg>\n", out);
	return 0;
}
