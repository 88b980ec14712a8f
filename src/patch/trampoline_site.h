/*
 * trampoline_site.h - the program's function a fault in the in-process
 * engine's code for the entry of a call is charged to: one lookup, made by
 * the runtime's crash handler inside the process (src/runtime/inprocess/crash_site.c)
 * and by `calltrace attach` from outside it (src/attach/attach_crash.c),
 * each reading the memory its own way.
 */
#ifndef CALLTRACE_PATCH_TRAMPOLINE_SITE_H
#define CALLTRACE_PATCH_TRAMPOLINE_SITE_H

#include <stdint.h>

struct trampoline_view {
	/* The start of the trampoline `address` lies in, or 0. */
	uint64_t (*trampoline_at)(void *ctx, uint64_t address);
	/* The function of the trampoline starting at `start` (its record's
	 * first word), or 0. */
	uint64_t (*function_of)(void *ctx, uint64_t start);
	/* Where its copy of the function's first instructions starts (its
	 * record's second word), or 0. */
	uint64_t (*resume_of)(void *ctx, uint64_t start);
	void *ctx;
	uint64_t enter_stub, enter_stub_end; /* the enter stub's code */
	uint64_t entering; /* the thread's runtime_patch_entering (patch_stubs.S) */
};

/* The function being entered when the fault at `pc` (%r11 holding `r11`)
 * hit: in its trampoline (the push, or its displaced instructions), in the
 * enter stub (the record is in %r11), or in the runtime's work for it (the
 * record the thread is marked with); 0 when none of them.  *own_code says
 * whether the fault is in the copy of the function's first instructions:
 * the function's own doing, not the tracer's.  Calls nothing of the C
 * library's. */
uint64_t trampoline_site_function(const struct trampoline_view *v, uint64_t pc, uint64_t r11,
				  int *own_code);

#endif
