/*
 * seq_diagrams.c - the sequence diagram as js-sequence-diagrams text, the
 * "diagrams" format CallTracer wrote: `participant name as P1`, `A->B: f()`
 * calls, `B-->A: ` returns, and notes over every participant for each
 * thread and where --max-calls cut a thread.
 */
#include "seq_model.h"

/* A participant name may not hold - < > : , # or quotes: the grammar uses
 * them.  Each is written as a character that looks the same. */
static void name(FILE *out, const char *s)
{
	static const struct {
		char c;
		const char *lookalike;
	} subst[] = {
	    {'-', "\xe2\x80\x90"},			  /* U+2010 hyphen */
	    {':', "\xe2\x88\xb6"},			  /* U+2236 ratio */
	    {',', "\xe2\x80\x9a"},			  /* U+201A low quotation mark */
	    {'<', "\xe2\x80\xb9"},			  /* U+2039 angle quotation marks */
	    {'>', "\xe2\x80\xba"}, {'"', "\xe2\x80\x9d"}, /* U+201D */
	    {'#', "\xef\xbc\x83"},			  /* U+FF03 fullwidth number sign */
	    {'\n', " "},
	};
	for (; *s; s++) {
		size_t i = 0;
		while (i < sizeof(subst) / sizeof(subst[0]) && subst[i].c != *s)
			i++;
		if (i < sizeof(subst) / sizeof(subst[0]))
			fputs(subst[i].lookalike, out);
		else
			putc(*s, out);
	}
}

/* Messages run to the end of the line. */
static void text(FILE *out, const char *s)
{
	for (; *s; s++)
		putc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
}

static void note_over_all(const struct seq_model *m, FILE *out, const char *s)
{
	if (m->nparts > 1)
		fprintf(out, "Note over P0,P%u: ", m->nparts - 1);
	else
		fputs("Note over P0: ", out);
	text(out, s);
	putc('\n', out);
}

int seq_write_diagrams(const struct seq_model *m, FILE *out)
{
	char buf[400];
	fputs("Title: ", out);
	text(out, m->title);
	putc('\n', out);
	for (uint32_t i = 0; i < m->nparts; i++) {
		fputs("participant ", out);
		name(out, m->parts[i].label);
		fprintf(out, " as P%u\n", i);
	}
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		switch (msg->kind) {
		case SEQ_SECTION:
			note_over_all(m, out, msg->text);
			break;
		case SEQ_CALL:
			fprintf(out, "P%u->P%u: ", msg->from, msg->to);
			text(out, msg->text);
			putc('\n', out);
			break;
		case SEQ_RETURN:
			fprintf(out, "P%u-->P%u: \n", msg->from, msg->to);
			break;
		case SEQ_CUT:
			note_over_all(m, out, seq_cut_text(m, msg, buf, sizeof(buf)));
			break;
		case SEQ_NOTE:
			fprintf(out, "Note over P%u: ", msg->from);
			text(out, msg->text);
			putc('\n', out);
			break;
		}
	}
	return 0;
}
