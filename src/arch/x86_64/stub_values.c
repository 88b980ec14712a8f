/*
 * stub_values.c (x86-64) - the values of a call from the registers the
 * patch stubs saved (src/runtime/inprocess/patch_stubs.S): see ../stub_values.h.
 */
#include "../stub_values.h"

/* The registers as the patch stubs save them. */
struct entry_registers {
	uint64_t rdi, rsi, rdx, rcx, r8, r9, rax, r10;
	uint8_t xmm[16][16];
};

struct return_registers {
	uint64_t rax, rdx, rcx, rsi, rdi, r8, r9, r10, r11, pad;
	uint8_t xmm[16][16];
};

void arch_stub_entry_values(const void *saved, uint64_t slot, struct value_registers *r)
{
	const struct entry_registers *e = saved;
	*r = (struct value_registers){
	    .gp = {e->rdi, e->rsi, e->rdx, e->rcx, e->r8, e->r9, e->rax},
	    .vec = e->xmm[0],
	    .sp = slot, /* the return address; stack arguments from +8 */
	};
}

/* rax holds where a result in memory went, at the return as well. */
void arch_stub_return_values(const void *saved, uint64_t slot, uint64_t result_at,
			     struct value_registers *r)
{
	const struct return_registers *rr = saved;
	(void)result_at;
	*r = (struct value_registers){
	    .gp = {rr->rdi, rr->rsi, rr->rdx, rr->rcx, rr->r8, rr->r9, rr->rax},
	    .vec = rr->xmm[0],
	    .sp = slot + 8,
	};
}
