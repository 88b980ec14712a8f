/*
 * func_signature.h - what a function takes and returns, read from DWARF,
 * and where each value is under the target's calling convention (System V
 * on x86-64, AAPCS64 on aarch64: src/arch/<cpu>/arg_placement.c): at the
 * function's first instruction (arguments) and at its return (the return
 * value).
 *
 * A signature is described once per (ELF file, entry address) and cached.
 * Each parameter has a name, a type descriptor (struct ctype: what the
 * views need to print a value as C or JSON, and the type's text as a C
 * programmer writes it) and a location: one or two pieces in registers or
 * one on the stack.  The capture plan (struct func_plan) is the same
 * knowledge reduced to a flat, pointer-free array of copy steps that an
 * engine applies per call without libdw; it travels as bytes
 * (func_plan_serialize / func_plan_parse).
 *
 * Debug info is read with libdwfl, so it may be in the file itself or
 * found through .gnu_debuglink or /usr/lib/debug/.build-id/.
 */
#ifndef CALLTRACE_FUNC_SIGNATURE_H
#define CALLTRACE_FUNC_SIGNATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../arch/value_regs.h"

/* --- types --- */

enum ctype_kind {
	CTYPE_UNKNOWN, /* not described here (vectors, incomplete types): bytes */
	CTYPE_VOID,
	CTYPE_INT,     /* size 1, 2, 4, 8 or 16; is_signed */
	CTYPE_CHAR,    /* char, signed char, unsigned char (is_signed) */
	CTYPE_BOOL,    /* bool, _Bool */
	CTYPE_ENUM,    /* size, is_signed, enumerators */
	CTYPE_FLOAT,   /* float (4), double (8), long double (16: x87, quad on aarch64) */
	CTYPE_COMPLEX, /* _Complex: two floats of size / 2 */
	CTYPE_POINTER, /* data and function pointers, C++ references */
	CTYPE_STRING,  /* a pointer to (const) char, signed char or unsigned char */
	CTYPE_STRUCT,  /* struct or class: members */
	CTYPE_UNION,   /* members, all at offset 0 */
	CTYPE_ARRAY,   /* a member array: count x element (parameters decay) */
};

struct ctype;

struct ctype_enumerator {
	const char *name;
	uint64_t value; /* the enum's bits; sign-extended when is_signed */
};

struct ctype_member {
	const char *name; /* "" for an unnamed member */
	const struct ctype *type;
	uint32_t offset;     /* bytes from the start of the struct */
	uint16_t bit_offset; /* bitfields: first bit above offset * 8 */
	uint16_t bit_size;   /* 0: not a bitfield */
};

struct ctype {
	enum ctype_kind kind;
	uint32_t size;
	uint32_t align;
	bool is_signed;
	bool by_reference;	     /* C++: not trivially copyable, so passed and
					returned through a hidden pointer */
	bool unaligned;		     /* a packed member: passed in memory */
	bool is_reference;	     /* POINTER: a C++ reference (& or &&) */
	bool ieee_quad;		     /* a 16-byte FLOAT (COMPLEX: its parts) is IEEE
					binary128 (aarch64's long double), not x87's */
	const char *text;	     /* "const char *", "struct point", "int &", "u32" */
	const struct ctype *element; /* ARRAY; a parameter's or result's
					reference: the type it refers to, whose
					object is read at the call (else NULL) */
	uint32_t count;		     /* ARRAY */
	const struct ctype_enumerator *enumerators;
	uint32_t n_enumerators;
	const struct ctype_member *members;
	uint32_t n_members;
};

/* --- where values are --- */

/* enum value_reg: the registers of the target's convention (rdi... on
 * x86-64, x0... on aarch64): src/arch/<cpu>/value_regs.h. */

/* "rdi", "xmm0", "x0", "v0", ...; "?" outside the enum. */
const char *value_reg_name(unsigned reg);

enum piece_kind {
	PIECE_REG,	/* the low `size` bytes of register `reg` */
	PIECE_STACK,	/* `size` bytes at sp + offset (the first stack argument: 8 on
			   x86-64, above the return address; 0 on aarch64) */
	PIECE_INDIRECT, /* `size` bytes at the address register `reg` holds */
};

struct value_piece {
	uint8_t kind; /* enum piece_kind */
	uint8_t reg;  /* enum value_reg */
	uint16_t size;
	uint32_t value_offset; /* where these bytes go in the value */
	int32_t offset;	       /* PIECE_STACK */
};

enum value_where {
	WHERE_NONE,	   /* no value: void */
	WHERE_PIECES,	   /* the value is the concatenation of pieces[] */
	WHERE_UNSUPPORTED, /* somewhere this code does not read: see why */
};

struct value_location {
	uint8_t where; /* enum value_where */
	uint8_t npieces;
	struct value_piece pieces[4]; /* up to 4: an aarch64 HFA's members */
	const char *why;	      /* WHERE_UNSUPPORTED: a static explanation */
};

/* --- the capture plan: what an engine does per call --- */

#define FUNC_PLAN_MAX_ARGS 32 /* later parameters are not captured */
#define FUNC_PLAN_MAX_STEPS                                                                        \
	132		       /* at most 4 per value (an aarch64 HFA's members; a reference: its  \
				  pointer and the object it refers to) */
#define FUNC_PLAN_MAX_COPY 512 /* bytes of a value copied at most */

enum plan_op {
	PLAN_REG,	   /* copy `size` low bytes of register `reg` (at most
			      value_reg_bytes) */
	PLAN_STACK,	   /* copy `size` bytes at sp + offset */
	PLAN_MEMORY,	   /* copy `size` bytes at (register reg) + offset */
	PLAN_STRING_REG,   /* the string the pointer in register reg points to */
	PLAN_STRING_STACK, /* the string the pointer at sp + offset points to */
	PLAN_UNAVAILABLE,  /* write VALUE_UNAVAILABLE */
	PLAN_DEREF,	   /* copy `size` bytes at the address the value's first 8
			      bytes hold (copied by an earlier step) + offset; when
			      they cannot be read, the value ends before them */
	PLAN_OP_COUNT
};

struct plan_step {
	uint8_t op;  /* enum plan_op */
	uint8_t reg; /* enum value_reg */
	uint16_t size;
	uint16_t value_offset; /* where the copied bytes go in the value */
	int32_t offset;
};

/* One value: steps[first .. first + count); copies fill a VALUE_BYTES of
 * `size` bytes; a string step or PLAN_UNAVAILABLE is the value's only one.
 * No step: a value that takes no register and no stack (an empty class),
 * an empty VALUE_BYTES. */
struct plan_value {
	uint8_t first, count;
	uint16_t size;
};

struct func_plan {
	uint8_t nargs;	    /* values of EV_ARGS, in DWARF order */
	uint8_t has_return; /* 1: an EV_RETVAL with one value */
	uint8_t nsteps;
	struct plan_value args[FUNC_PLAN_MAX_ARGS];
	struct plan_value ret;
	struct plan_step steps[FUNC_PLAN_MAX_STEPS];
};

/* Bytes func_plan_serialize writes for `plan`. */
size_t func_plan_serialized_size(const struct func_plan *plan);
/* Writes `plan` into buf (little-endian, versioned); returns the bytes
 * written, or 0 when cap is too small. */
size_t func_plan_serialize(const struct func_plan *plan, uint8_t *buf, size_t cap);
/* Reads a plan from exactly `len` bytes; 0, or -1 when they are not a
 * valid plan (every count, register, op and size is checked). */
int func_plan_parse(const uint8_t *buf, size_t len, struct func_plan *plan);

/* --- signatures --- */

struct func_param {
	const char *name; /* "" when DWARF has none */
	const struct ctype *type;
	bool artificial; /* C++ `this` */
	struct value_location loc;
};

struct func_signature {
	const char *name; /* DWARF's name ("add", not "Counter::add") */
	uint64_t address; /* the file address asked for */
	bool variadic;
	bool abi_known;		    /* false: a compiler clone (.isra, .constprop...)
				       whose calling convention is its own */
	bool hidden_return_pointer; /* VREG_HIDDEN_RESULT holds where the result
				       goes */
	uint32_t nparams;
	const struct func_param *params;
	const struct ctype *return_type; /* CTYPE_VOID for void */
	struct value_location ret;
	struct func_plan plan;
};

struct signature_table;

struct signature_table *signature_table_new(void);
void signature_table_free(struct signature_table *t);

/* The function whose entry is `file_address` in the ELF file `path`, or
 * NULL when the file's DWARF describes no function starting there.  The
 * same pointer is returned again for the same question; it lives as long
 * as the table. */
const struct func_signature *signature_table_lookup(struct signature_table *t, const char *path,
						    uint64_t file_address);

/* One line for people and tests:
 *   "int add_ints(int a @rdi:4, int b @rsi:4) @rax:4"
 * pieces are "rdi:4", "xmm0:8", "stack+8:4", "[rax]:24" (through the
 * pointer in rax), "?" with the reason when unsupported.  Returns the
 * length it needed (as snprintf). */
size_t func_signature_describe(const struct func_signature *s, char *buf, size_t len);

#endif
