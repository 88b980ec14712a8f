/*
 * flame_doc.c - what the ordered flame chart and the merged flame graph
 * share around their frames: the styles, the title, the search box and
 * the reset button; at the end the legend of the kinds of calls, the
 * function names, the script and the tooltip.
 */
#include "flame_tree_draw.h"
#include "call_kind.h"

#include <string.h>

extern const char flame_svg_script[];

static const char flame_style[] =
    "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#d4d4d4\"/>"
    "<rect width=\"2\" height=\"6\" fill=\"#a8a8a8\"/></pattern></defs>\n"
    "<style>\n"
    "svg{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:11px}\n"
    ".ui{font-family:'DejaVu Sans',Verdana,sans-serif}\n"
    "#chart rect{stroke:#fff;stroke-width:0.5}\n"
    "#chart rect.unf{stroke:#b00;stroke-dasharray:3,2;stroke-width:1}\n"
    "#chart text{fill:#000;pointer-events:none}\n"
    "#chart g:hover>rect{stroke:#000;stroke-width:1}\n"
    "#chart g.hit>rect{fill:#e040fb}\n"
    "#chart rect.bh{fill:#e3eaf4;stroke:none}\n"
    "#chart text.bl{font-weight:bold;fill:#234}\n"
    "#chart g.band>g{cursor:pointer}\n"
    ".btn{cursor:pointer}.btn rect{fill:#fff;stroke:#889}.btn:hover rect{fill:#eef}\n"
    "#tip rect{fill:#fffff0;stroke:#555;filter:drop-shadow(1px 2px 2px #0004)}\n"
    "#tip text{font-size:12px}#tip .head{font-weight:bold}\n"
    "#axis line{stroke:#ddd}#axis text{fill:#555;font-size:10px}\n"
    "</style>\n";

/* The title, and a line of what the chart shows. */
static void write_titles(FILE *out, unsigned width, const char *title, const char *subtitle)
{
	unsigned middle = width / 2;
	fprintf(out,
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fafafa\"/>\n"
		"<text class=\"ui\" x=\"%u\" y=\"22\" text-anchor=\"middle\" "
		"font-size=\"16\" font-weight=\"bold\">",
		middle);
	view_xml_text_cut(out, title, 120);
	fprintf(out,
		"</text>\n<text class=\"ui\" x=\"%u\" y=\"40\" text-anchor=\"middle\" "
		"fill=\"#555\">",
		middle);
	view_xml_text(out, subtitle);
	fputs("</text>\n", out);
}

/* The search box, the match count, the reset button and the axis. */
static void write_controls(FILE *out, unsigned width)
{
	fprintf(out,
		"<foreignObject x=\"%u\" y=\"48\" width=\"460\" height=\"28\">"
		"<div xmlns=\"http://www.w3.org/1999/xhtml\" style=\"font:12px sans-serif\">"
		"<input id=\"search\" type=\"text\" placeholder=\"search: regex or text\" "
		"style=\"width:220px\"/> <button id=\"search-go\">Search</button> "
		"<button id=\"search-clear\">Clear</button></div></foreignObject>\n"
		"<text id=\"matched\" class=\"ui\" x=\"%u\" y=\"66\" fill=\"#808\"></text>\n"
		"<g id=\"reset\" class=\"btn ui\" visibility=\"hidden\"><rect x=\"%u\" y=\"50\" "
		"width=\"90\" height=\"22\" rx=\"4\"/><text x=\"%u\" y=\"65\" "
		"text-anchor=\"middle\">Reset zoom</text></g>\n"
		"<g id=\"axis\"></g>\n",
		FLAME_MARGIN, FLAME_MARGIN + 470, width - FLAME_MARGIN - 90,
		width - FLAME_MARGIN - 45);
}

void flame_doc_begin(FILE *out, unsigned width, unsigned height, const char *root_attrs,
		     const char *title, const char *subtitle)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" %s>\n",
		width, height, width, height, root_attrs);
	fputs(flame_style, out);
	write_titles(out, width, title, subtitle);
	write_controls(out, width);
}

void flame_doc_legend(FILE *out, unsigned width, uint32_t kinds)
{
	if (!(kinds & ~(1u << CALL_FUNCTION)))
		return;
	unsigned x = width - FLAME_MARGIN;
	for (int k = VIEW_KINDS - 1; k >= 0; k--) /* right to left */
		if (kinds & (1u << k))
			x -= 14 + 7 * (unsigned)strlen(view_kind_label((unsigned)k)) + 10;
	fputs("<g id=\"legend\" class=\"ui\" font-size=\"10\">", out);
	for (unsigned k = 0; k < VIEW_KINDS; k++) {
		if (!(kinds & (1u << k)))
			continue;
		fprintf(out,
			"<rect x=\"%u\" y=\"4\" width=\"10\" height=\"10\" fill=\"%s\"/>"
			"<text x=\"%u\" y=\"13\">%s</text>",
			x, view_kind_legend_color(k), x + 14, view_kind_label(k));
		x += 14 + 7 * (unsigned)strlen(view_kind_label(k)) + 10;
	}
	fputs("</g>\n", out);
}

void flame_doc_end(FILE *out, const struct flame_names *names, double min_px)
{
	flame_names_write(names, out);
	fprintf(out, "<metadata id=\"minpx\">%g</metadata>\n", min_px);
	fputs("<g id=\"tip\" visibility=\"hidden\" pointer-events=\"none\">"
	      "<rect rx=\"4\"/><text></text></g>\n<script><![CDATA[\n",
	      out);
	fputs(flame_svg_script, out);
	fputs("]]></script>\n</svg>\n", out);
}
