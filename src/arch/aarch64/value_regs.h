/*
 * value_regs.h (aarch64) - the registers values are read from under
 * AAPCS64 (see x86_64/value_regs.h for the interface): x0-x7, then x8, the
 * indirect result register; v0-v7, whose low bytes hold a float (s), a
 * double (d) or a long double (q, 16 bytes).  No x87 ones.
 */
#ifndef CALLTRACE_VALUE_REGS_AARCH64_H
#define CALLTRACE_VALUE_REGS_AARCH64_H

enum value_reg {
	VREG_X0,
	VREG_X1,
	VREG_X2,
	VREG_X3,
	VREG_X4,
	VREG_X5,
	VREG_X6,
	VREG_X7,
	VREG_X8,
	VREG_V0,
	VREG_V1,
	VREG_V2,
	VREG_V3,
	VREG_V4,
	VREG_V5,
	VREG_V6,
	VREG_V7,
	VREG_COUNT
};

#define VREG_GP_COUNT (VREG_X8 + 1)
#define VREG_VEC0 VREG_V0
#define VREG_X87_0 VREG_COUNT
#define VREG_HIDDEN_RESULT VREG_X8

#define VREG_NAMES                                                                                 \
	{                                                                                          \
		"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "v0", "v1", "v2", "v3",      \
		    "v4", "v5", "v6", "v7"                                                         \
	}

/* A general register's 8 bytes; a vector register's 16 (a q register). */
static inline unsigned value_reg_bytes(unsigned reg)
{
	return reg >= VREG_V0 ? 16 : 8;
}

#endif
