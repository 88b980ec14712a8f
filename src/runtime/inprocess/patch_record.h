/*
 * patch_record.h - the in-process engine's trampolines: each starts with
 * the record of its function, then the head that takes it to
 * runtime_patch_enter_stub (patch_emit_enter: `push %r11; movabs $record,
 * %r11; jmp` on x86-64), then the function's displaced instructions
 * and the jump back.  Every trampoline has the same size, so the one an
 * address lies in is found from the code memory alone (crash_site.c).
 */
#ifndef CALLTRACE_PATCH_RECORD_H
#define CALLTRACE_PATCH_RECORD_H

#include <stdint.h>
#include "../../patch/patch.h"

struct func_plan;

struct patch_record {
	uint64_t address;	      /* the function */
	uint64_t resume;	      /* its displaced instructions, relocated */
	const struct func_plan *plan; /* its arguments' capture, or NULL */
	uint64_t by_hooks;	      /* its module's hooks record its calls */
};
#define PATCH_RECORD_ROOM 32 /* sizeof(struct patch_record), at a trampoline's start */
#define PATCH_TRAMPOLINE_SIZE (PATCH_RECORD_ROOM + ARCH_TRAMPOLINE_HEAD_MAX + PATCH_RELOCATED_MAX)

/* patch_stubs.S: the enter stub, and the record of the call it is in (0:
 * none) for the thread. */
extern void runtime_patch_enter_stub(void);
extern void runtime_patch_enter_stub_end(void);
extern __thread uint64_t runtime_patch_entering __attribute__((tls_model("initial-exec")));

/* patch_engine.c: runtime_patch_build (patch_shadow.h) from the decoding
 * *d of the function's entry (made by this process or another of the
 * session), with no decoder. */
enum patch_verdict runtime_patch_build_decoded(uint64_t address, const uint8_t *code,
					       const struct patch_decoded *d,
					       const struct func_plan *plan, int by_hooks,
					       uint64_t *entry_at, int *trapped);
/* patch_lazy.c: runtime_patch_mark (patch_shadow.h) of a function whose
 * entry's decoding is *decoded (NULL: decoded at its first call); the
 * decoding must stay as long as the mark.  `warm`: the function ran in an
 * earlier process of the session, and is patched when the marks are
 * written (runtime_patch_marks_write), if it has a decoding. */
int runtime_patch_mark_decoded(uint64_t address, size_t size, size_t room,
			       const struct func_plan *plan, int by_hooks,
			       const struct patch_decoded *decoded, int warm);
/* patch_lazy.c: how many first calls this process made since it started
 * or forked. */
uint32_t runtime_patch_first_calls_here(void);
/* patch_lazy.c: the functions in [lo, hi) whose first call came in this
 * process (not those patched warm), as addresses less `bias`, at most
 * `max` into `out`, in no order; how many. */
size_t runtime_patch_marks_ran(uint64_t lo, uint64_t hi, uint64_t bias, uint64_t *out, size_t max);
/* patch_lazy.c: room for `more` marks at once (a module's functions, as
 * many as its list says), so that the table grows once, not doubling its
 * way there with every smaller table left behind. */
void runtime_patch_marks_reserve(size_t more);

#endif
