/*
 * kernel_rights.h - what the kernel lets this process see and what it
 * offers: the tracepoint ids (tracefs), why perf_event_open refused, and
 * whether kernel functions could be traced (kprobes, function_graph).
 */
#ifndef CALLTRACE_KERNEL_RIGHTS_H
#define CALLTRACE_KERNEL_RIGHTS_H

#include <stddef.h>

/* Into `err`: one line saying what is missing for the events `what`
 * ("system calls"...) after perf_event_open failed with `errnum`, and how
 * to get it. */
void kernel_rights_explain(int errnum, const char *what, char *err, size_t errlen);

/* Into `out`: one line saying whether kernel functions can be recorded
 * here (kprobes, the function_graph tracer) and which events can. */
void kernel_offers(char *out, size_t len);

#endif
