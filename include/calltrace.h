/*
 * calltrace.h - the API for programs that link or preload the calltrace
 * runtime (libcalltrace.so / libcalltrace.a).
 *
 * Tracing starts by itself when the program starts (unless CALLTRACE_START
 * is "off"); these calls let a program narrow it to the part that matters.
 * All are cheap and thread-safe; none changes errno.
 */
#ifndef CALLTRACE_H
#define CALLTRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Set the runtime up and start recording (calltrace-rs's name; the runtime
 * does this by itself when the program starts, so calling it is optional).
 * Honours CALLTRACE_START=off: then recording waits for calltrace_start(). */
void calltrace_init(void);
/* End recording and make the trace durable: calls still open end here
 * (calltrace-rs's name; done by itself at exit as far as a crash-safe
 * trace needs). */
void calltrace_cleanup(void);
/* Start (or resume) recording calls, in every thread. */
void calltrace_start(void);
/* Stop recording; calls still open in each thread end at this point. */
void calltrace_stop(void);
/* Make what was recorded so far durable on disk (it is already safe from
 * the program's crash; this also survives the machine's). */
void calltrace_flush(void);
/* Put a named mark into the calling thread's stream. */
void calltrace_mark(const char *text);
/* 1 while recording, else 0. */
int calltrace_enabled(void);

#ifdef __cplusplus
}
#endif

#endif
