/*
 * seq_seqdiag.c - the sequence diagram as seqdiag text (blockdiag family):
 * participants P0.. with labels, `A -> B [label = "f()"]` calls,
 * `A <-- B` returns, a `=== pid N tid M ===` separator per thread and a
 * `... N more calls ...` delay where --max-calls cut a thread.
 */
#include "seq_model.h"

/* seqdiag strings are double-quoted and know no escapes. */
static void quoted(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++)
		putc(*s == '"' ? '\'' : *s == '\\' ? '/' : *s == '\n' ? ' ' : *s, out);
	putc('"', out);
}

/* Separator and delay texts end at the next "===" or "...": keep them plain. */
static void plain(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '=' || *s == '.' || *s == '\n' ? ' ' : *s, out);
}

int seq_write_seqdiag(const struct seq_model *m, FILE *out)
{
	char buf[400];
	fputs("seqdiag {\n  // ", out);
	plain(out, m->title);
	fputs("\n  default_fontsize = 12;\n  edge_length = 180;\n  span_height = 8;\n\n", out);
	for (uint32_t i = 0; i < m->nparts; i++) {
		fprintf(out, "  P%u [label = ", i);
		quoted(out, m->parts[i].label);
		fputs("];\n", out);
	}
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		switch (msg->kind) {
		case SEQ_SECTION:
			fputs("\n  === ", out);
			plain(out, msg->text);
			fputs(" ===\n", out);
			break;
		case SEQ_CALL:
			fprintf(out, "  P%u -> P%u [label = ", msg->from, msg->to);
			quoted(out, msg->text);
			fputs("];\n", out);
			break;
		case SEQ_RETURN:
			fprintf(out, "  P%u <-- P%u;\n", msg->to, msg->from);
			break;
		case SEQ_NOTE:
			fputs("  ... ", out);
			plain(out, msg->text);
			fputs(" ...\n", out);
			break;
		case SEQ_CUT:
			fputs("  ... ", out);
			plain(out, seq_cut_text(m, msg, buf, sizeof(buf)));
			fputs(" ...\n", out);
			break;
		}
	}
	fputs("}\n", out);
	return 0;
}
