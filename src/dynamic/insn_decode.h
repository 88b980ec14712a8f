/*
 * insn_decode.h - x86-64 instruction length decoding: enough to know how
 * long an instruction is, whether it addresses memory relative to %rip and
 * whether it is a relative branch, so that it can be copied out of line.
 */
#ifndef CALLTRACE_INSN_DECODE_H
#define CALLTRACE_INSN_DECODE_H

#include <stddef.h>
#include <stdint.h>

enum x86_map { MAP_ONE = 0, MAP_0F = 1, MAP_0F38 = 2, MAP_0F3A = 3, MAP_OTHER = 4 };

struct x86_insn {
	uint8_t len;
	uint8_t map; /* enum x86_map */
	uint8_t opcode;
	uint8_t modrm; /* valid when has_modrm */
	uint8_t has_modrm;
	uint8_t rex;	      /* 0 when none */
	uint8_t opsize16;     /* 0x66 prefix */
	uint8_t rep;	      /* 0xf3 prefix */
	uint8_t repne;	      /* 0xf2 prefix */
	uint8_t vex;	      /* VEX or EVEX encoded */
	uint8_t rip_disp_off; /* offset of the disp32 of a %rip operand, 0: none */
	uint8_t rel_size;     /* relative branch: size of the displacement, 0: none */
	int64_t imm;	      /* the (sign-extended) immediate or displacement */
};

/* Decodes the instruction at `code` (at most `avail` bytes).  Returns its
 * length, or 0 when it is not understood or does not fit. */
int x86_decode(const uint8_t *code, size_t avail, struct x86_insn *in);

#endif
