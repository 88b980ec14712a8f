/*
 * seq_model.h - what a sequence diagram shows, kept for the writers of each
 * format (seq_seqdiag.c, seq_mermaid.c, seq_plantuml.c, seq_diagrams.c,
 * seq_svg.c): the participants in order of first appearance, and per thread
 * a section of call and return messages.  --max-calls bounds its size.
 */
#ifndef CALLTRACE_SEQ_MODEL_H
#define CALLTRACE_SEQ_MODEL_H

#include <stdint.h>
#include "views.h"
#include "view_util.h"

/* Participant 0 is where each thread's outermost calls come from. */
#define SEQ_START 0

enum seq_msg_kind {
	SEQ_SECTION, /* a thread begins: text is its label */
	SEQ_CALL,    /* from calls to: text is "f()" */
	SEQ_RETURN,  /* to returns to from */
	SEQ_CUT,     /* the thread's calls stop being shown: see cut_calls */
	SEQ_NOTE,    /* a calltrace_mark() on participant from: text is "mark: TEXT" */
};

struct seq_msg {
	enum seq_msg_kind kind;
	uint32_t from, to;			/* participants (set by seq_model_finish) */
	const struct symbol *from_sym, *to_sym; /* CALL, RETURN: NULL is "start" */
	const char *text;			/* owned by the model */
	uint64_t seq;				/* CALL: the call's sequence number */
	uint64_t cut_calls;			/* CUT: how many calls were not shown */
	uint64_t cut_seq;			/* CUT: the last call shown, and when it began */
	uint64_t cut_ns;
	char *own_text; /* CALL with recorded arguments: its text, "f(a=1)" */
};

struct seq_participant {
	char *label;
};

struct call_values;

struct seq_model {
	enum seq_by by; /* SEQ_BY_AUTO until seq_model_finish */
	enum seq_by asked;
	char title[256]; /* what the lifelines are, for the diagram's title */
	const char *first_module;
	int modules; /* 1, or 2 for "several" */
	const char *first_file;
	int files;	      /* source files of the program's own calls: 1, or 2 for "several" */
	int from_main;	      /* a process's main thread is shown from its call of main */
	uint64_t before_main; /* outermost calls left out before main */
	uint64_t max_calls;
	int failed;
	struct seq_participant *parts;
	uint32_t nparts, cap_parts;
	struct seq_msg *msgs;
	size_t nmsgs, cap_msgs;
	/* Walk state. */
	struct view_symtab part_of;   /* symbol id -> participant + 1 */
	struct view_symtab call_text; /* symbol id -> "f()" */
	struct call_values *values;   /* NULL until a call has arguments */
	const struct symbol **stack;  /* function of each depth, or NULL if not shown */
	uint32_t cap_stack;
	uint64_t thread_calls;	    /* calls seen in the current thread */
	uint64_t last_seq, last_ns; /* the last call shown */
	int noted;		    /* a mark began the thread's section */
	int awaiting_main;	    /* the thread's calls before main are left out */
	size_t cut_msg;		    /* index of the thread's CUT message, or SIZE_MAX */
};

/* The text of a CUT message, the same in every format: "N more calls of
 * this thread not shown (--max-calls M) after call #S at T: ...". */
const char *seq_cut_text(const struct seq_model *m, const struct seq_msg *msg, char *buf,
			 size_t len);

#endif
