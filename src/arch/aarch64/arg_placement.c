/*
 * arg_placement.c (aarch64) - where AAPCS64, as GNU/Linux follows it, puts
 * each argument and the result (src/arch/arg_placement.h).
 *
 * Integers and pointers take the next of x0-x7 (a 16-byte integer an even
 * pair); a floating-point value the next of v0-v7 (a float in s, a double
 * in d, a long double in q); a homogeneous floating-point aggregate (HFA:
 * 1 to 4 members of one floating-point type, complex numbers counting
 * two) one v register a member, all or none.  Other aggregates up to 16
 * bytes take one or two x registers (an even pair when 16-byte aligned),
 * all or none; bigger ones, and C++ classes that are not trivially
 * copyable, are copied by the caller and passed by a pointer.  A value
 * that does not find its registers goes on the stack (8-byte slots,
 * 16-byte aligned when its type is), and no later value of its kind takes
 * a register.  A result comes back where a first argument would go; one
 * that would go by a pointer is written where x8 points at the call.
 * Variadic arguments are placed as named ones (not Apple's way): the named
 * ones are read.
 */
#include "../arg_placement.h"
#include "../../symbols/func_signature_internal.h"

#include <string.h>

#define ARG_REGS 8 /* x0-x7, v0-v7 */

/* Adds the members of t to an HFA's count, all of one floating-point
 * size (*base); false when t cannot be part of one. */
static bool hfa_members(const struct ctype *t, uint32_t *base, uint32_t *count, int depth)
{
	if (depth > TYPE_DEPTH_MAX)
		return false;
	switch (t->kind) {
	case CTYPE_FLOAT:
	case CTYPE_COMPLEX: {
		uint32_t size = t->kind == CTYPE_FLOAT ? t->size : t->size / 2;
		if (*base && *base != size)
			return false;
		*base = size;
		*count += t->kind == CTYPE_FLOAT ? 1 : 2;
		return true;
	}
	case CTYPE_ARRAY: {
		uint32_t one = 0;
		if (!hfa_members(t->element, base, &one, depth + 1))
			return false;
		*count += one * (t->count < 5 ? t->count : 5);
		return true;
	}
	case CTYPE_STRUCT:
	case CTYPE_UNION: {
		uint32_t most = 0;
		for (uint32_t i = 0; i < t->n_members; i++) {
			uint32_t n = 0;
			if (t->members[i].bit_size ||
			    !hfa_members(t->members[i].type, base, &n, depth + 1))
				return false;
			most = t->kind == CTYPE_UNION ? (n > most ? n : most) : most + n;
		}
		*count += most;
		return true;
	}
	default:
		return false;
	}
}

/* How many members t has as an HFA (a float, a double and a complex
 * number are ones too), each of *base bytes; 0 when it is none. */
static uint32_t hfa_count(const struct ctype *t, uint32_t *base)
{
	uint32_t count = 0;
	*base = 0;
	if (!hfa_members(t, base, &count, 0) || count < 1 || count > 4 || t->size != *base * count)
		return 0;
	return count;
}

/* Whether t goes as a pointer to a copy (or, as a result, to where x8
 * points). */
static bool by_pointer(const struct ctype *t)
{
	uint32_t base;
	return t->by_reference || (t->size > 16 && !hfa_count(t, &base));
}

static void on_stack(struct arg_placement *s, const struct ctype *t, struct value_location *loc)
{
	uint32_t align = t->align > 8 ? 16 : 8;
	s->stack = (s->stack + align - 1) & ~(align - 1);
	loc->where = WHERE_PIECES;
	placement_add(loc, PIECE_STACK, 0, t->size, 0, (int32_t)s->stack);
	s->stack += (t->size + 7) & ~7u;
}

/* The members of an HFA in v registers from `first`. */
static void in_vector_regs(unsigned first, uint32_t count, uint32_t base,
			   struct value_location *loc)
{
	loc->where = WHERE_PIECES;
	for (uint32_t i = 0; i < count; i++)
		placement_add(loc, PIECE_REG, (uint8_t)(VREG_V0 + first + i), base, base * i, 0);
}

/* t's bytes in x registers from `first`, 8 a register. */
static void in_general_regs(const struct ctype *t, unsigned first, struct value_location *loc)
{
	loc->where = WHERE_PIECES;
	for (uint32_t at = 0, r = first; at < t->size; at += 8, r++)
		placement_add(loc, PIECE_REG, (uint8_t)(VREG_X0 + r),
			      t->size - at < 8 ? t->size - at : 8, at, 0);
}

/* A value that is not passed whole where it is: nothing, or none of it
 * read here.  True when it was one of those. */
static bool placed_otherwise(const struct ctype *t, struct value_location *loc)
{
	memset(loc, 0, sizeof(*loc));
	if (t->kind == CTYPE_VOID || (t->size == 0 && t->kind != CTYPE_UNKNOWN)) {
		loc->where = t->kind == CTYPE_VOID ? WHERE_NONE : WHERE_PIECES;
		return true;
	}
	if (t->kind == CTYPE_UNKNOWN) {
		placement_unsupported(loc, t->size ? "vector type" : "incomplete type");
		return true;
	}
	return false;
}

void arch_place_argument(struct arg_placement *s, const struct ctype *t, struct value_location *loc)
{
	uint32_t base, count = hfa_count(t, &base);
	if (placed_otherwise(t, loc)) {
		if (loc->where == WHERE_UNSUPPORTED && t->size)
			s->next_vec += s->next_vec < ARG_REGS; /* a vector: in a v register */
		return;
	}
	if (by_pointer(t)) {
		if (s->next_gp < ARG_REGS) {
			loc->where = WHERE_PIECES;
			placement_add(loc, PIECE_INDIRECT, (uint8_t)(VREG_X0 + s->next_gp++),
				      t->size, 0, 0);
		} else {
			placement_unsupported(loc, "passed by reference on the stack");
			s->stack += 8;
		}
		return;
	}
	if (count) {
		if (s->next_vec + count <= ARG_REGS) {
			in_vector_regs(s->next_vec, count, base, loc);
			s->next_vec += count;
			return;
		}
		s->next_vec = ARG_REGS;
	} else {
		unsigned regs = (t->size + 7) / 8;
		unsigned first = t->align >= 16 ? (s->next_gp + 1) & ~1u : s->next_gp;
		if (first + regs <= ARG_REGS) {
			in_general_regs(t, first, loc);
			s->next_gp = first + regs;
			return;
		}
		s->next_gp = ARG_REGS;
	}
	on_stack(s, t, loc);
}

void arch_place_return(struct arg_placement *s, const struct ctype *t, struct value_location *loc,
		       bool *hidden)
{
	uint32_t base, count = hfa_count(t, &base);
	*s = (struct arg_placement){0};
	*hidden = false;
	if (placed_otherwise(t, loc))
		return;
	if (by_pointer(t)) {
		*hidden = true; /* x8 at the call: kept for the return by the engine */
		loc->where = WHERE_PIECES;
		placement_add(loc, PIECE_INDIRECT, VREG_X8, t->size, 0, 0);
	} else if (count) {
		in_vector_regs(0, count, base, loc);
	} else {
		in_general_regs(t, 0, loc);
	}
}
