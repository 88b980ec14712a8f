/*
 * decoder.h - capstone, set up once for the patching core, and the
 * questions about a decoded instruction that more than one part of the core
 * asks.  Internal to src/patch: the rest of the project sees patch.h and
 * insn_info.h, never capstone's types.
 */
#ifndef CALLTRACE_PATCH_DECODER_H
#define CALLTRACE_PATCH_DECODER_H

#include <capstone/capstone.h>
#include <stddef.h>
#include <stdint.h>

/* An instruction buffer of the decoder's own, made once per caller and
 * never freed; NULL when capstone cannot be set up. */
cs_insn *decoder_insn_buffer(void);

/* Decodes one instruction at *code (which runs at *address) into `insn`
 * and moves the three past it; 0, or -1 when the bytes are not known. */
int decoder_next(const uint8_t **code, size_t *len, uint64_t *address, cs_insn *insn);

int decoder_in_group(const cs_insn *insn, uint8_t group);

/* The target of a direct relative branch (jmp, jcc, call, loop, jrcxz,
 * xbegin), or 0 when the instruction is not one. */
uint64_t decoder_branch_target(const cs_insn *insn);

/* Where the disp32 of an operand that addresses memory relative to %rip
 * starts in the instruction; 0 when there is none. */
uint8_t decoder_rip_disp_offset(const cs_insn *insn);

#endif
