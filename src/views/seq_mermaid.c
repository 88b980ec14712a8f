/*
 * seq_mermaid.c - the sequence diagram as Mermaid `sequenceDiagram` text:
 * participants with aliases, `A->>+B: f()` calls and `B-->>-A: ` returns
 * (with activation bars), each thread in a shaded `rect` headed by a note
 * over all participants, and a note where --max-calls cut a thread.
 */
#include "seq_model.h"

/* Mermaid text: ';' ends a statement and '#' starts an entity code, so both
 * (and the angle brackets of C++ names) are written as entity codes. */
static void text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case ';':
			fputs("#59;", out);
			break;
		case '#':
			fputs("#35;", out);
			break;
		case '<':
			fputs("#60;", out);
			break;
		case '>':
			fputs("#62;", out);
			break;
		case '\n':
			putc(' ', out);
			break;
		default:
			putc(*s, out);
		}
	}
}

static void note_over_all(const struct seq_model *m, FILE *out, const char *s)
{
	if (m->nparts > 1)
		fprintf(out, "  Note over P0,P%u: ", m->nparts - 1);
	else
		fputs("  Note over P0: ", out);
	text(out, s);
	putc('\n', out);
}

int seq_write_mermaid(const struct seq_model *m, FILE *out)
{
	static const char *const shades[] = {"rgb(235, 242, 250)", "rgb(250, 242, 230)"};
	char buf[400];
	unsigned sections = 0;
	fputs("sequenceDiagram\n  title ", out);
	text(out, m->title);
	putc('\n', out);
	for (uint32_t i = 0; i < m->nparts; i++) {
		fprintf(out, "  participant P%u as ", i);
		text(out, m->parts[i].label);
		putc('\n', out);
	}
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		switch (msg->kind) {
		case SEQ_SECTION:
			if (sections)
				fputs("  end\n", out);
			fprintf(out, "  rect %s\n", shades[sections++ % 2]);
			note_over_all(m, out, msg->text);
			break;
		case SEQ_CALL:
			fprintf(out, "  P%u->>+P%u: ", msg->from, msg->to);
			text(out, msg->text);
			putc('\n', out);
			break;
		case SEQ_RETURN:
			fprintf(out, "  P%u-->>-P%u: return\n", msg->from, msg->to);
			break;
		case SEQ_CUT:
			note_over_all(m, out, seq_cut_text(m, msg, buf, sizeof(buf)));
			break;
		case SEQ_NOTE:
			fprintf(out, "  Note over P%u: ", msg->from);
			text(out, msg->text);
			putc('\n', out);
			break;
		}
	}
	if (sections)
		fputs("  end\n", out);
	return 0;
}
