/*
 * stub_values.h - what a capture reads (format/value_encode.h) from the
 * registers the in-process engine's stubs saved (src/arch/<cpu>/
 * patch_stubs.S, each architecture's layout): src/arch/<cpu>/
 * stub_values.c.
 */
#ifndef CALLTRACE_STUB_VALUES_H
#define CALLTRACE_STUB_VALUES_H

#include <stdint.h>
#include "../format/value_encode.h"

/* At a function's entry: the registers the enter stub saved, the slot of
 * the call's return address (patch_stubs.S).  The memory reader is left
 * to the caller. */
void arch_stub_entry_values(const void *saved, uint64_t slot, struct value_registers *r);
/* At its return, through the return stub: `result_at` is where a result
 * returned in memory went, as the entry's VREG_HIDDEN_RESULT said (the
 * callee need not keep it on aarch64).  The x87 registers are the
 * caller's to add. */
void arch_stub_return_values(const void *saved, uint64_t slot, uint64_t result_at,
			     struct value_registers *r);

#endif
