/*
 * progress.h - how far a long command got, for a person watching: one line
 * on stderr rewritten in place ("\rcalltrace: reading the trace: 45%"),
 * only when stderr is a terminal and once the work has taken a second,
 * erased at the end; nothing at all when stderr is a file or a pipe.
 * CALLTRACE_PROGRESS_AFTER=SECONDS sets that second (for testing: 0 draws
 * the line from the first update, whatever the machine's speed).  One
 * helper for every long command: the readers drive it with the events
 * read of those the trace holds (cli_trace_walk), the ptrace engine with
 * the calls it has seen.
 */
#ifndef CALLTRACE_PROGRESS_H
#define CALLTRACE_PROGRESS_H

#include <stdint.h>
#include <time.h>

struct progress {
	const char *what;
	int on;	      /* stderr is a terminal */
	int shown;    /* a line is on screen */
	double after; /* seconds before the first line */
	struct timespec start, last;
};

void progress_begin(struct progress *p, const char *what);
/* `done` of `total` as a percentage; with total 0, `done` counts `unit`s
 * ("2.4 million calls").  Cheap: draws at most twice a second. */
void progress_update(struct progress *p, uint64_t done, uint64_t total, const char *unit);
/* Erases the line. */
void progress_end(struct progress *p);

#endif
