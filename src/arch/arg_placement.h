/*
 * arg_placement.h - where the target's calling convention puts a
 * function's arguments and its result, from their DWARF types: System V
 * on x86-64, AAPCS64 on aarch64 (src/arch/<cpu>/arg_placement.c, the one
 * the Makefile builds).  Decided once per function by
 * src/symbols/signature_abi.c, which builds the capture plan from it and
 * gives the two helpers below.
 */
#ifndef CALLTRACE_ARG_PLACEMENT_H
#define CALLTRACE_ARG_PLACEMENT_H

#include <stdbool.h>
#include "../symbols/func_signature.h"

/* The registers and the stack the arguments placed so far took. */
struct arg_placement {
	unsigned next_gp, next_vec;
	uint32_t stack; /* bytes of stack arguments */
};

/* Where the result of type t is, at the return; *hidden when the caller
 * passes where it goes (VREG_HIDDEN_RESULT).  Starts *s for the
 * arguments. */
void arch_place_return(struct arg_placement *s, const struct ctype *t, struct value_location *loc,
		       bool *hidden);
/* Where the next argument, of type t, is at the function's first
 * instruction. */
void arch_place_argument(struct arg_placement *s, const struct ctype *t,
			 struct value_location *loc);

/* signature_abi.c: a location this code does not read (why: static text);
 * a piece added to a location (of kind enum piece_kind). */
void placement_unsupported(struct value_location *loc, const char *why);
void placement_add(struct value_location *loc, uint8_t kind, uint8_t reg, uint32_t size,
		   uint32_t value_offset, int32_t offset);

#endif
