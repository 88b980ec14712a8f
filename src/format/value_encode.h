/*
 * value_encode.h - a function's argument or return values, read as its
 * capture plan says (symbols/func_signature.h) from the registers and the
 * stack at its real entry or return, encoded as the tagged values of
 * EV_ARGS / EV_RETVAL (trace_format.h).  Every engine that captures uses it.
 */
#ifndef CALLTRACE_VALUE_ENCODE_H
#define CALLTRACE_VALUE_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include "../symbols/func_signature.h"

/* Reads up to len bytes of the traced program's memory at `address`;
 * returns how many it could (0: none).  Never faults. */
typedef size_t (*value_memory_reader)(void *ctx, uint64_t address, void *out, size_t len);

/* What a plan reads: the ABI's registers and the stack pointer at the
 * function's first instruction (or at its return), and its memory. */
struct value_registers {
	uint64_t gp[VREG_GP_COUNT]; /* enum value_reg order: rdi ... r9, rax; x0 ... x8 */
	const uint8_t *vec;	    /* xmm0..7 or v0..7, 16 bytes each */
	const uint8_t *st;	    /* x86-64, at a return: st(0) and st(1), 16 bytes
				       each (10 used); NULL when not read (the plan
				       does not use them) */
	uint64_t sp;		    /* at the entry: what stack offsets are from (the
				       return address on x86-64, the caller's sp on
				       aarch64) */
	value_memory_reader read;
	void *read_ctx;
};

/* Bytes one value may take encoded, at most. */
#define VALUE_ENCODED_MAX (FUNC_PLAN_MAX_COPY + 16)

/* Encodes value `v` of `plan` at p (room for VALUE_ENCODED_MAX bytes);
 * returns the end. */
uint8_t *value_encode(uint8_t *p, const struct func_plan *plan, const struct plan_value *v,
		      const struct value_registers *r);

#endif
