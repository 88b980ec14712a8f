/*
 * value_regs.h (x86-64) - the registers values are read from under the
 * System V convention (see ../value_regs.h): the integer argument
 * registers in their order, rax; xmm0-xmm7; the x87 st(0) and st(1), read
 * at a return only.  Every src/arch/<cpu>/value_regs.h gives the same
 * names: enum value_reg (its general registers first, VREG_COUNT last),
 * VREG_GP_COUNT, VREG_VEC0 (the first of 8 vector registers), VREG_X87_0
 * (the x87 ones; VREG_COUNT where there are none), VREG_HIDDEN_RESULT,
 * VREG_NAMES and value_reg_bytes.
 */
#ifndef CALLTRACE_VALUE_REGS_X86_64_H
#define CALLTRACE_VALUE_REGS_X86_64_H

enum value_reg {
	VREG_RDI,
	VREG_RSI,
	VREG_RDX,
	VREG_RCX,
	VREG_R8,
	VREG_R9,
	VREG_RAX,
	VREG_XMM0,
	VREG_XMM1,
	VREG_XMM2,
	VREG_XMM3,
	VREG_XMM4,
	VREG_XMM5,
	VREG_XMM6,
	VREG_XMM7,
	VREG_ST0, /* the x87 stack's top: a long double result, 10 bytes */
	VREG_ST1, /* below it: a complex long double's imaginary part */
	VREG_COUNT
};

/* General registers (struct value_registers' gp[], in this order). */
#define VREG_GP_COUNT (VREG_RAX + 1)
/* The first of the 8 vector registers, 16 bytes each. */
#define VREG_VEC0 VREG_XMM0
/* The first x87 register (read at a return only). */
#define VREG_X87_0 VREG_ST0
/* Where the address of a result returned in memory is passed. */
#define VREG_HIDDEN_RESULT VREG_RDI

#define VREG_NAMES                                                                                 \
	{                                                                                          \
		"rdi", "rsi", "rdx", "rcx", "r8", "r9", "rax", "xmm0", "xmm1", "xmm2", "xmm3",     \
		    "xmm4", "xmm5", "xmm6", "xmm7", "st0", "st1"                                   \
	}

/* The bytes a plan may copy from the register at most: an eightbyte of
 * the general and xmm ones, 16 of st0 and st1 (10 used). */
static inline unsigned value_reg_bytes(unsigned reg)
{
	return reg >= VREG_ST0 ? 16 : 8;
}

#endif
