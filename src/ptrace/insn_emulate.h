/*
 * insn_emulate.h - how a breakpoint hit gets the thread past the function's
 * first instructions without single-stepping: an entry plan, made once per
 * function from its code, applied in the tracer at every hit.
 *
 * The common prologue instructions (endbr64, nops, pushes, register moves,
 * sub/add of an immediate to %rsp, jmp) are emulated on the register set
 * and the stack; a function that starts with a bare `ret` returns at once;
 * anything else is executed out of line: relocated by the patching core
 * (src/patch: a %rip operand fixed up, a call pushing its original return
 * address, a jcc widened) to a slot that jumps back behind the original.
 */
#ifndef CALLTRACE_INSN_EMULATE_H
#define CALLTRACE_INSN_EMULATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#define PLAN_MAX_OPS 6
#define PLAN_MAX_PUSHES 6
/* The relocated instruction (at most 34 bytes: a call emulated by pushes and
 * a jump through an address) and the jump back (at most 14). */
#define OOL_SLOT_SIZE 48

enum plan_kind {
	PLAN_EMULATE = 1,     /* apply ops, continue at `resume` */
	PLAN_RETURN = 2,      /* apply ops, then the function returns at once */
	PLAN_OUT_OF_LINE = 3, /* continue at the slot `resume` */
	PLAN_JUMP = 4,	      /* entered through a jump to a slot (jump_patch.h) */
};

enum emu_kind {
	EMU_PUSH = 1, /* push reg */
	EMU_MOV,      /* mov src, dst (64 or 32 bits) */
	EMU_ADD_RSP,  /* add/sub imm, %rsp: imm signed, flags set */
};

struct emu_op {
	uint8_t kind;
	uint8_t dst, src; /* register numbers, 0 = rax .. 15 = r15 */
	uint8_t wide;	  /* EMU_MOV: 64-bit */
	uint8_t sub;	  /* EMU_ADD_RSP: a sub (flags differ) */
	int32_t imm;	  /* EMU_ADD_RSP: the immediate */
};

struct entry_plan {
	uint8_t kind; /* enum plan_kind */
	uint8_t nops;
	uint8_t npushes;
	uint8_t ool_len;  /* PLAN_OUT_OF_LINE: the displaced instruction's length */
	uint8_t ool_back; /* and where the slot's jump back starts */
	struct emu_op ops[PLAN_MAX_OPS];
	uint64_t resume; /* rip after the plan (EMULATE, OUT_OF_LINE) */
};

/* Result of planning: the plan, or what the out-of-line slot must hold. */
enum plan_result {
	PLAN_OK = 0,
	PLAN_NEEDS_SLOT = 1, /* call plan_fill_slot() with a slot address */
	PLAN_UNPATCHABLE = -1,
};

/* Plans the entry of the function at runtime address `addr` whose code is
 * `code` (`avail` bytes, not beyond the function's end). */
enum plan_result plan_build(struct entry_plan *plan, uint64_t addr, const uint8_t *code,
			    size_t avail);
/* Writes the out-of-line slot for the plan into `slot` (OOL_SLOT_SIZE
 * bytes) for slot address `slot_addr`; 0, or -1 when a %rip operand cannot
 * reach its target from there. */
int plan_fill_slot(struct entry_plan *plan, uint64_t addr, const uint8_t *code, uint64_t slot_addr,
		   uint8_t *slot);

/* Applies the plan's ops to `r` (rip and rsp included, except for
 * PLAN_RETURN whose return the caller performs).  The stack words written
 * by pushes are stored in `pushed` from the lowest address up; returns how
 * many. */
int plan_apply(const struct entry_plan *plan, struct user_regs_struct *r, uint64_t *pushed);

/* The register of `r` with x86 number `n` (0 = rax .. 15 = r15). */
unsigned long long *regs_by_number(struct user_regs_struct *r, unsigned n);

#endif
