/*
 * seq_plantuml.c - the sequence diagram as PlantUML: participants with
 * aliases, `A -> B : f()` calls with activation bars, `B --> A` returns,
 * `== pid N tid M ==` dividers per thread and a `... text ...` delay where
 * --max-calls cut a thread.
 */
#include "seq_model.h"

/* One line of text; PlantUML reads "\n" in labels as a line break. */
static void text(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			putc(' ', out);
		else if (*s == '\\')
			fputs("\\\\", out);
		else
			putc(*s, out);
	}
}

int seq_write_plantuml(const struct seq_model *m, FILE *out)
{
	char buf[400];
	fputs("@startuml\nskinparam sequenceMessageAlign left\nhide footbox\ntitle ", out);
	for (const char *s = m->title; *s; s++)
		putc(*s == '\n' ? ' ' : *s, out);
	putc('\n', out);
	for (uint32_t i = 0; i < m->nparts; i++) {
		fputs("participant \"", out);
		for (const char *s = m->parts[i].label; *s; s++)
			putc(*s == '"' ? '\'' : *s, out);
		fprintf(out, "\" as P%u\n", i);
	}
	for (size_t i = 0; i < m->nmsgs; i++) {
		const struct seq_msg *msg = &m->msgs[i];
		switch (msg->kind) {
		case SEQ_SECTION:
			fputs("== ", out);
			for (const char *s = msg->text; *s; s++)
				putc(*s == '=' ? '-' : *s, out);
			fputs(" ==\n", out);
			break;
		case SEQ_CALL:
			fprintf(out, "P%u -> P%u : ", msg->from, msg->to);
			text(out, msg->text);
			fprintf(out, "\nactivate P%u\n", msg->to);
			break;
		case SEQ_RETURN:
			fprintf(out, "P%u --> P%u\ndeactivate P%u\n", msg->from, msg->to,
				msg->from);
			break;
		case SEQ_NOTE:
			fprintf(out, "note over P%u: ", msg->from);
			text(out, msg->text);
			putc('\n', out);
			break;
		case SEQ_CUT:
			fputs("... ", out);
			text(out, seq_cut_text(m, msg, buf, sizeof(buf)));
			fputs(" ...\n", out);
			break;
		}
	}
	fputs("@enduml\n", out);
	return 0;
}
