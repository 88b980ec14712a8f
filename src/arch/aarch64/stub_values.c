/*
 * stub_values.c (aarch64) - the values of a call from the registers the
 * patch stubs saved (patch_stubs.S: x0-x15 from their frame's start,
 * q0-q31 from 128): see ../stub_values.h.
 */
#include "../stub_values.h"

struct stub_registers {
	uint64_t x[16];
	uint8_t q[32][16];
};

/* The call's slot is at its caller's sp - 8 (where the stub, and the usual
 * prologue, keep x30): the stack arguments start at the slot + 8. */
void arch_stub_entry_values(const void *saved, uint64_t slot, struct value_registers *r)
{
	const struct stub_registers *s = saved;
	*r = (struct value_registers){.vec = s->q[0], .sp = slot + 8};
	for (unsigned i = 0; i < VREG_GP_COUNT; i++)
		r->gp[i] = s->x[i];
}

/* x8 is not kept by the callee: where a result in memory went is the
 * entry's x8. */
void arch_stub_return_values(const void *saved, uint64_t slot, uint64_t result_at,
			     struct value_registers *r)
{
	arch_stub_entry_values(saved, slot, r);
	r->gp[VREG_X8] = result_at;
}
