/*
 * arg_placement.c (x86-64) - where the System V x86-64 calling convention
 * puts each argument and the result (src/arch/arg_placement.h).
 *
 * What the ABI classification follows (System V x86-64 psABI 3.2.3):
 * scalars are INTEGER or SSE; aggregates up to 16 bytes are classified by
 * eightbyte, bigger or packed ones go in memory; long double is X87 (memory
 * as an argument, st(0) as a result); an argument that does not find all
 * its registers goes whole on the stack; a result in memory makes rdi a
 * hidden first argument and comes back in rax.  C++ classes that are not
 * trivially copyable are passed and returned by a hidden pointer; an empty
 * class takes nothing.
 */
#include "../arg_placement.h"
#include "../../symbols/func_signature_internal.h"

#include <string.h>

enum abi_class { CLS_NONE, CLS_INTEGER, CLS_SSE, CLS_X87, CLS_MEMORY };

enum arg_pass {
	PASS_NONE,	/* nothing to pass (void, an empty class) */
	PASS_REGS,	/* eightbytes in registers, if there are enough */
	PASS_MEMORY,	/* on the stack (arguments) or via a hidden pointer (results) */
	PASS_X87,	/* long double: stack as an argument, st(0) as a result */
	PASS_REFERENCE, /* C++ non-trivial class: a pointer to it */
	PASS_VECTOR,	/* a vector type: one xmm register, not read here */
	PASS_UNKNOWN,	/* an incomplete type: where it goes is not known here */
};

static enum abi_class merge_class(enum abi_class a, enum abi_class b)
{
	if (a == b || b == CLS_NONE)
		return a;
	if (a == CLS_NONE)
		return b;
	if (a == CLS_MEMORY || b == CLS_MEMORY)
		return CLS_MEMORY;
	if (a == CLS_INTEGER || b == CLS_INTEGER)
		return CLS_INTEGER;
	if (a == CLS_X87 || b == CLS_X87)
		return CLS_MEMORY;
	return CLS_SSE;
}

/* Merges class c into the eightbytes that bytes [from, to) touch. */
static void mark(enum abi_class cls[2], uint64_t from, uint64_t to, enum abi_class c)
{
	for (uint64_t eb = from / 8; eb <= (to - 1) / 8; eb++) {
		if (eb >= 2) {
			cls[0] = cls[1] = CLS_MEMORY;
			return;
		}
		cls[eb] = merge_class(cls[eb], c);
	}
}

/* Classifies the eightbytes of a value of type t placed at `offset`. */
static void classify_at(const struct ctype *t, uint64_t offset, enum abi_class cls[2], int depth)
{
	if (t->size == 0)
		return;
	uint64_t end = offset + t->size;
	if (depth > TYPE_DEPTH_MAX || t->kind == CTYPE_UNKNOWN) {
		mark(cls, offset, end, CLS_MEMORY);
		return;
	}
	switch (t->kind) {
	case CTYPE_FLOAT:
		mark(cls, offset, end, t->size == 16 ? CLS_X87 : CLS_SSE);
		return;
	case CTYPE_COMPLEX:
		mark(cls, offset, end, t->size == 32 ? CLS_X87 : CLS_SSE);
		return;
	case CTYPE_STRUCT:
	case CTYPE_UNION:
		for (uint32_t i = 0; i < t->n_members; i++) {
			const struct ctype_member *m = &t->members[i];
			uint64_t at = offset + m->offset;
			if (m->bit_size)
				mark(cls, at, at + (m->bit_offset + m->bit_size + 7) / 8,
				     CLS_INTEGER);
			else
				classify_at(m->type, at, cls, depth + 1);
		}
		return;
	case CTYPE_ARRAY:
		for (uint32_t i = 0; i < t->count && i < 16; i++)
			classify_at(t->element, offset + (uint64_t)i * t->element->size, cls,
				    depth + 1);
		return;
	default:
		mark(cls, offset, end, CLS_INTEGER);
	}
}

static enum arg_pass classify(const struct ctype *t, enum abi_class cls[2])
{
	cls[0] = cls[1] = CLS_NONE;
	if (t->kind == CTYPE_VOID)
		return PASS_NONE;
	if (t->by_reference)
		return PASS_REFERENCE;
	if ((t->kind == CTYPE_FLOAT && t->size == 16) ||
	    (t->kind == CTYPE_COMPLEX && t->size == 32))
		return PASS_X87;
	if (t->kind == CTYPE_UNKNOWN && t->size > 0 && t->size <= 16)
		return PASS_VECTOR;
	if (t->kind == CTYPE_UNKNOWN && t->size == 0)
		return PASS_UNKNOWN;
	if (t->size > 16 || t->unaligned)
		return PASS_MEMORY;
	classify_at(t, 0, cls, 0);
	if (cls[0] == CLS_MEMORY || cls[1] == CLS_MEMORY)
		return PASS_MEMORY;
	/* a struct of one long double is X87 (st(0) as a result); X87 beside
	 * anything else is memory */
	if (cls[0] == CLS_X87 || cls[1] == CLS_X87)
		return cls[0] == CLS_X87 && cls[1] == CLS_X87 ? PASS_X87 : PASS_MEMORY;
	return cls[0] == CLS_NONE && cls[1] == CLS_NONE ? PASS_NONE : PASS_REGS;
}

static const uint8_t int_regs[6] = {VREG_RDI, VREG_RSI, VREG_RDX, VREG_RCX, VREG_R8, VREG_R9};

static void place_on_stack(struct arg_placement *rs, const struct ctype *t,
			   struct value_location *loc)
{
	uint32_t align = t->align > 8 ? 16 : 8;
	rs->stack = (rs->stack + align - 1) & ~(align - 1);
	loc->where = WHERE_PIECES;
	placement_add(loc, PIECE_STACK, 0, t->size, 0, (int32_t)(8 + rs->stack));
	rs->stack += (t->size + 7) & ~7u;
}

/* Registers for the eightbytes of a PASS_REGS value, if they are free. */
static bool place_in_regs(struct arg_placement *rs, const struct ctype *t,
			  const enum abi_class cls[2], struct value_location *loc)
{
	unsigned eightbytes = (t->size + 7) / 8, ints = 0, sses = 0;
	for (unsigned i = 0; i < eightbytes; i++)
		ints += cls[i] == CLS_INTEGER, sses += cls[i] == CLS_SSE;
	if (rs->next_gp + ints > 6 || rs->next_vec + sses > 8)
		return false;
	loc->where = WHERE_PIECES;
	for (unsigned i = 0; i < eightbytes; i++) {
		uint32_t size = t->size - 8 * i < 8 ? t->size - 8 * i : 8;
		if (cls[i] == CLS_INTEGER)
			placement_add(loc, PIECE_REG, int_regs[rs->next_gp++], size, 8 * i, 0);
		else if (cls[i] == CLS_SSE)
			placement_add(loc, PIECE_REG, (uint8_t)(VREG_XMM0 + rs->next_vec++), size,
				      8 * i, 0);
	}
	return true;
}

void arch_place_argument(struct arg_placement *rs, const struct ctype *t,
			 struct value_location *loc)
{
	enum abi_class cls[2];
	memset(loc, 0, sizeof(*loc));
	switch (classify(t, cls)) {
	case PASS_NONE:
		loc->where = WHERE_PIECES;
		return;
	case PASS_REFERENCE:
		if (rs->next_gp < 6) {
			loc->where = WHERE_PIECES;
			placement_add(loc, PIECE_INDIRECT, int_regs[rs->next_gp++], t->size, 0, 0);
		} else {
			placement_unsupported(loc, "passed by reference on the stack");
			rs->stack += 8;
		}
		return;
	case PASS_VECTOR:
		placement_unsupported(loc, "vector type");
		rs->next_vec++;
		return;
	case PASS_UNKNOWN:
		placement_unsupported(loc, "incomplete type");
		return;
	case PASS_REGS:
		if (place_in_regs(rs, t, cls, loc))
			return;
		__attribute__((fallthrough)); /* not enough registers left */
	case PASS_MEMORY:
	case PASS_X87:
		place_on_stack(rs, t, loc);
		return;
	}
}

static void place_return(const struct ctype *t, struct value_location *loc, bool *hidden)
{
	enum abi_class cls[2];
	memset(loc, 0, sizeof(*loc));
	*hidden = false;
	switch (classify(t, cls)) {
	case PASS_NONE:
		loc->where = t->kind == CTYPE_VOID ? WHERE_NONE : WHERE_PIECES;
		return;
	case PASS_X87: /* st(0); a complex long double's imaginary part in st(1) */
		loc->where = WHERE_PIECES;
		placement_add(loc, PIECE_REG, VREG_ST0, 16, 0, 0);
		if (t->size == 32)
			placement_add(loc, PIECE_REG, VREG_ST1, 16, 16, 0);
		return;
	case PASS_VECTOR:
		placement_unsupported(loc, "vector type");
		return;
	case PASS_UNKNOWN:
		placement_unsupported(loc, "incomplete type");
		return;
	case PASS_REGS: {
		unsigned ints = 0, sses = 0;
		static const uint8_t ret_int[2] = {VREG_RAX, VREG_RDX};
		loc->where = WHERE_PIECES;
		for (unsigned i = 0; i < (t->size + 7) / 8; i++) {
			uint32_t size = t->size - 8 * i < 8 ? t->size - 8 * i : 8;
			if (cls[i] == CLS_INTEGER)
				placement_add(loc, PIECE_REG, ret_int[ints++], size, 8 * i, 0);
			else if (cls[i] == CLS_SSE)
				placement_add(loc, PIECE_REG, (uint8_t)(VREG_XMM0 + sses++), size,
					      8 * i, 0);
		}
		return;
	}
	case PASS_MEMORY:
	case PASS_REFERENCE:
		*hidden = true;
		loc->where = WHERE_PIECES;
		placement_add(loc, PIECE_INDIRECT, VREG_RAX, t->size, 0, 0);
		return;
	}
}

void arch_place_return(struct arg_placement *s, const struct ctype *t, struct value_location *loc,
		       bool *hidden)
{
	place_return(t, loc, hidden);
	*s = (struct arg_placement){.next_gp = *hidden}; /* rdi holds where it goes */
}
