/*
 * walker.h - the call-tree walker: the one stream every view consumes.
 *
 * walker_run() reads each thread's events in order (thread by thread, in
 * order of first appearance), matches enters with exits, resolves symbols,
 * applies the filters and hands the consumer an enter/exit stream with
 * depth, sequence number, times and durations.  Calls still open when a
 * thread's events end (a crash, kill -9, a pause, exec) are closed at the
 * thread's last timestamp and flagged `unfinished`.  Memory is bounded by
 * call depth, never by trace length.
 */
#ifndef CALLTRACE_WALKER_H
#define CALLTRACE_WALKER_H

#include <regex.h>
#include <stdint.h>
#include "../format/trace_reader.h"
#include "../symbols/symbols.h"

struct walk_thread {
	const struct trace_thread *thread;
	const struct trace_image *image; /* may be NULL if the record was lost */
	uint32_t pid, tid;
	const char *name; /* thread name, or "" */
};

enum walk_kind { WALK_ENTER, WALK_EXIT };

struct walk_event {
	enum walk_kind kind;
	const struct walk_thread *thread;
	const struct symbol *sym;
	unsigned call_kind;   /* enum trace_call_kind (= sym->kind) */
	uint64_t address;     /* runtime address of the function (for other
				 kinds: TRACE_CALL_WHERE of the fid's address) */
	uint32_t depth;	      /* 0 = outermost shown call */
	uint64_t seq;	      /* 1-based order of the call's entry in its thread */
	uint64_t start_ns;    /* since the session started */
	uint64_t end_ns;      /* EXIT only */
	uint64_t duration_ns; /* EXIT only */
	uint64_t child_ns;    /* EXIT only: total duration of shown direct children */
	int unfinished;	      /* EXIT only: no exit was recorded */
	int entered_before;   /* its enter is not in the trace: a ring reused the
				 window (start_ns is the kept events' start) */
	/* Tagged values (format/trace_format.h; views/call_values.h writes
	 * them), NULL when none were recorded: the arguments (ENTER and EXIT)
	 * and the return value (EXIT only). */
	const uint8_t *args, *ret;
	uint32_t args_len, ret_len;
};

/* A calltrace_mark() of the program, where it happened among the calls. */
struct walk_mark {
	const struct walk_thread *thread;
	uint64_t time_ns;
	uint32_t depth; /* shown calls open around it */
	uint64_t seq;	/* the sequence number of the last call entered before it */
	const char *text;
	uint32_t len; /* text is not NUL-terminated */
};

struct walk_consumer {
	void *ctx;
	void (*begin_thread)(void *ctx, const struct walk_thread *t); /* optional */
	void (*enter)(void *ctx, const struct walk_event *e);	      /* optional */
	void (*exit)(void *ctx, const struct walk_event *e);	      /* optional */
	void (*end_thread)(void *ctx, const struct walk_thread *t);   /* optional */
	/* Marks inside the shown calls' scope (-F), in order with the calls. */
	void (*mark)(void *ctx, const struct walk_mark *m); /* optional */
};

#define WALK_MAX_IDS 64

struct walk_filters {
	regex_t *only; /* -F: only subtrees of matching functions */
	regex_t *hide; /* -N: hide matching functions, keep callees */
	/* -F and -N as given: a function matches when the regex matches its
	 * shown, full or mangled name, or the text names it exactly as a
	 * view shows it (symbol_name_is: "area(double)", "f (a.c)"). */
	const char *only_text, *hide_text;
	uint32_t max_depth;		    /* -D: 0 = unlimited */
	uint64_t min_duration_ns;	    /* -t */
	uint32_t tids[WALK_MAX_IDS], ntids; /* --tid: empty = all */
	uint32_t pids[WALK_MAX_IDS], npids; /* --pid: empty = all */
	uint32_t kinds;			    /* --kind: bit (1 << enum trace_call_kind) per kind
					       shown; 0 = all */
	/* --from/--to: only the calls that overlap [from_ns, to_ns] (times
	 * since the session started): a call that began before from_ns and
	 * still ran at from_ns is shown, one that began after to_ns is not;
	 * likewise marks in the range.  to_set = 0: no end. */
	uint64_t from_ns, to_ns;
	int to_set;
};

struct walk_stats {
	uint64_t events;     /* enter/exit events read */
	uint64_t calls;	     /* calls recorded (before filters) */
	uint64_t shown;	     /* calls handed to the consumer */
	uint64_t unfinished; /* calls closed without an exit */
	uint64_t cut;	     /* of those, closed where the record lost events
				(windows missing, a corrupt window) */
	uint64_t left_open;  /* of those, open when their thread's events ended */
	uint64_t unmatched;  /* exits with no matching enter */
	uint64_t max_depth;

	/* Of the calls, those whose enter a ring overwrote. */
	uint64_t entered_before;
};

/* Walks every thread of the trace.  Returns 0. */
int walker_run(struct trace_reader *r, struct symbol_table *symbols, const struct walk_filters *f,
	       const struct walk_consumer *c, struct walk_stats *stats);

#endif
