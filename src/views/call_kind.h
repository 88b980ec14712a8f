/*
 * call_kind.h - how the views tell the kinds of calls apart (the program's
 * own functions, library calls, system calls, off-CPU intervals:
 * format/trace_format.h): their names in each output, where the call goes
 * (a library, the kernel) and their colours.
 */
#ifndef CALLTRACE_CALL_KIND_H
#define CALLTRACE_CALL_KIND_H

#include <stddef.h>
#include "../format/trace_format.h"
#include "../symbols/symbols.h"

#define VIEW_KINDS 5 /* enum trace_call_kind values, CALL_FUNCTION .. CALL_KERNEL */

/* The JSON "kind": "function", "library", "syscall", "sched", "kernel". */
const char *view_kind_json(unsigned kind);
/* For people: "function", "library", "syscall", "off-CPU", "kernel". */
const char *view_kind_label(unsigned kind);
/* Parses a view_kind_json() or view_kind_label() name ("offcpu" too);
 * -1 if unknown. */
int view_kind_parse(const char *name);

/* Where a call of another kind goes, as the views draw it apart: a library
 * call's module by its base name ("libc.so.6"), "kernel" for system calls,
 * off-CPU intervals and kernel functions; NULL for the program's own. */
const char *view_kind_place(const struct symbol *s);

/* The name the text views show (replay, report, diff, speedscope): the
 * program's own function's as it is, a library call's with its library as
 * `uftrace replay --libname` writes it ("read@libc.so.6"), a system call's
 * after "[syscall] " ("[syscall] read"), a kernel function's after
 * "[kernel] "; an off-CPU interval's as it is ("off-cpu:blocked").  Into
 * buf; returns it (or the name itself). */
const char *view_kind_shown_name(const struct symbol *s, char *buf, size_t len);

/* A frame's name as FlameGraph's folded stacks spell the kernel's:
 * "read_[k]" for system calls, off-CPU intervals and kernel functions (its
 * palettes colour them apart); a library call's and the program's own
 * function's name as it is.  Into buf; returns it (or the name itself). */
const char *view_kind_frame_name(const struct symbol *s, char *buf, size_t len);

/* A frame's fill: warm for the program's own (view_flame_color), blues for
 * library calls, greens for system calls, grey for off-CPU, orange for
 * kernel functions; "#rrggbb". */
const char *view_symbol_color(const struct symbol *s, char *buf, size_t len);
/* The colour a kind's legend shows. */
const char *view_kind_legend_color(unsigned kind);

#endif
