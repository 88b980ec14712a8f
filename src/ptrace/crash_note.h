/*
 * crash_note.h - a fatal signal on its way to a traced thread, noted at its
 * delivery stop and written as a crash record (the runtime's format) when
 * the thread's exit stop says that signal ended it: what the ptrace engine
 * and the in-process attach share (crash_note.c).
 */
#ifndef CALLTRACE_DYNAMIC_CRASH_NOTE_H
#define CALLTRACE_DYNAMIC_CRASH_NOTE_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct trace_session;

struct crash_note {
	int signal, code; /* 0: none */
	uint64_t fault_address, pc;
	uint64_t site;	/* the program's function, when pc is in the tracer's code; or 0 */
	uint32_t flags; /* enum trace_crash_flag */
};

/* The program's function a fault at registers `r` is charged to, when the
 * pc is in the tracer's code for its entry; 0 otherwise.  *own_code: the
 * pc is in the tracer's copy of the function's own first instructions. */
typedef uint64_t (*crash_site_finder)(void *ctx, const struct user_regs_struct *r, int *own_code);

/* At the delivery stop of `sig` to stopped thread `tid` of `pid`: notes a
 * fatal one (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP) in `n`,
 * its site found by `site` (may be NULL). */
void crash_note_take(struct crash_note *n, pid_t pid, pid_t tid, int sig, crash_site_finder site,
		     void *ctx);
/* At thread `tid`'s exit stop: writes the crash record into `s` when the
 * noted signal ended it; the note is spent either way. */
void crash_note_write(struct crash_note *n, pid_t tid, struct trace_session *s);

#endif
