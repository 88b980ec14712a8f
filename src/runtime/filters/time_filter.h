/*
 * time_filter.h - record-time --time-filter (CALLTRACE_TIME_FILTER): only
 * the calls that lasted at least a given time are written, with their
 * callers (time_filter.c).
 */
#ifndef CALLTRACE_TIME_FILTER_H
#define CALLTRACE_TIME_FILTER_H

#include <stdint.h>
#include "../runtime.h"

/* Reads CALLTRACE_TIME_FILTER (once the session's clock is known). */
void runtime_time_filter_init(void);
/* One event: an enter is held back, an exit decides whether its call (and
 * the callers held back) is written.  1 when an enter was counted (its exit
 * must come), as runtime_record_event says. */
int runtime_time_filter_event(struct thread_state *t, uint64_t fn, enum hook_kind kind,
			      uint64_t tick, uint64_t sp);
/* The thread's calls held back are forgotten (recording stopped and
 * started again: the calls open then are ended). */
void runtime_time_filter_reset(struct thread_state *t);
/* Writes the enters held back: all of them (a crash: they are the stack the
 * report shows), or those of calls that lasted long enough by `tick` (an
 * exit).  The thread must not be inside a hook. */
void runtime_time_filter_flush(struct thread_state *t, int all, uint64_t tick);
/* A longjmp to the frame at `sp`: whether it leaves no call held back. */
int runtime_time_filter_jump_stays_inside(uint64_t sp);
/* The same jump, before the writer ends its open calls: the calls held
 * back that it leaves end now, written when they lasted long enough. */
void runtime_time_filter_unwind(struct thread_state *t, uint64_t sp, uint64_t tick);
/* In a fork child: the calls held back were entered in the parent, and are
 * counted as the writer counts those (never written in the child). */
void runtime_time_filter_fork_child(struct thread_state *t);

#endif
