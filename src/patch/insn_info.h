/*
 * insn_info.h - what a tracer that moves or emulates one x86-64 instruction
 * needs to know about it, decoded by capstone: its length, its %rip
 * operand, its relative branch, and what the few instructions emulated at a
 * function's entry (nops, push, register moves, %rsp adjustments, ret, jmp)
 * do.  Used by the ptrace engine; capstone's types stay inside src/patch.
 */
#ifndef CALLTRACE_PATCH_INSN_INFO_H
#define CALLTRACE_PATCH_INSN_INFO_H

#include <stddef.h>
#include <stdint.h>

enum insn_kind {
	INSN_OTHER = 0,
	INSN_NOP,     /* nop of any form, endbr64: no effect */
	INSN_RET,     /* near ret without an immediate */
	INSN_JMP,     /* direct jmp to `target` */
	INSN_CALL,    /* direct call of `target` */
	INSN_BRANCH,  /* another relative branch to `target`: jcc, loop, jrcxz, xbegin */
	INSN_PUSH,    /* push of the 64-bit register `src` */
	INSN_MOV,     /* mov of register `src` into register `dst`, 64 bits when `wide`,
			 else 32 (zero-extended) */
	INSN_RSP_ADD, /* add of `imm` to %rsp, or sub when `sub` */
};

struct insn_info {
	uint8_t len;
	uint8_t kind;	      /* enum insn_kind */
	uint8_t rip_disp_off; /* offset of the disp32 of a %rip operand; 0: none */
	uint8_t rel_size;     /* relative branches: bytes of the displacement; 0: none */
	uint8_t dst, src;     /* register numbers, 0 = rax .. 15 = r15 */
	uint8_t wide, sub;
	int32_t imm;
	uint64_t target; /* relative branches: where they go */
};

/* Decodes the instruction at `code` (at most `avail` bytes) that runs at
 * `address`.  Returns its length, or 0 when the bytes are not a whole known
 * instruction (or capstone cannot be set up). */
int insn_info_decode(const uint8_t *code, size_t avail, uint64_t address, struct insn_info *in);

#endif
