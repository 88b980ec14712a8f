/*
 * jump_patch.h - entering a traced function through a jump: the cheap
 * entry.
 *
 * Where the patching core (src/patch: patch_plan) finds that a function's
 * first instructions can be displaced by a five-byte jump, and no branch of
 * the module lands inside those bytes, they are replaced by a `jmp` to a
 * slot:
 *
 *   mov %r11,-8(%rsp)        %r11 kept below the stack (free at an entry)
 *   mov (%rsp),%r11          the return address, for the tracer to read
 *   int3                     the entry stop
 *   lea trap(%rip),%r11      the return trap takes its place on the stack
 *   mov %r11,(%rsp)
 *   mov -8(%rsp),%r11        %r11 as it was: a caller compiled with
 *                            -fipa-ra may keep a value there across the call
 *   <the displaced instructions, relocated by patch_relocate: %rip operands
 *    fixed up, jumps widened, a call pushing its original return address>
 *   jmp function + displaced
 *
 * so an entry stop costs one PTRACE_GETREGS and no memory access.
 */
#ifndef CALLTRACE_JUMP_PATCH_H
#define CALLTRACE_JUMP_PATCH_H

#include <stddef.h>
#include <stdint.h>

#define JUMP_SLOT_SIZE 64
#define JUMP_PATCH_LEN 5
#define JUMP_SAVED_OFFSET 5    /* %r11 is saved below the stack from here */
#define JUMP_STOP_OFFSET 9     /* the slot's int3 */
#define JUMP_RESTORE_OFFSET 21 /* mov -8(%rsp),%r11 */
#define JUMP_MOVED_OFFSET 26   /* where the moved instructions start */
#define JUMP_MAX_INSNS 8       /* PATCH_LAYOUT_MAX */

struct jump_plan {
	uint8_t len; /* bytes of displaced instructions */
	/* Filled by jump_fill_slot: where each displaced instruction starts in
	 * the function (from) and after JUMP_MOVED_OFFSET in the slot (to); the
	 * last entry is their end and the slot's jump back. */
	uint8_t nbounds;
	uint8_t from[JUMP_MAX_INSNS + 1], to[JUMP_MAX_INSNS + 1];
};

/* The targets of every direct branch in a module's code, sorted: no patch
 * may cover one (a branch from another function may land just behind a
 * function's first instruction).  And where the sweep met bytes the
 * decoder does not know (data, or instructions newer than it): a function
 * with such bytes may hide a branch into its first ones. */
struct branch_targets {
	uint64_t *v;
	size_t n;
	uint64_t *unknown; /* ascending */
	size_t nunknown;
};

/* Sweeps `len` bytes of code at runtime address `base`; 0 or -1. */
int branch_targets_collect(struct branch_targets *bt, const uint8_t *code, size_t len,
			   uint64_t base);
void branch_targets_free(struct branch_targets *bt);

/* 1 when the function at `addr` (`code`, `size` bytes) can be entered by a
 * jump, with jp->len set; 0 otherwise. */
int jump_plan_build(struct jump_plan *jp, uint64_t addr, const uint8_t *code, size_t size,
		    const struct branch_targets *bt);
/* Builds the slot (JUMP_SLOT_SIZE bytes) at `slot` with return trap `trap`
 * and completes the plan; 0, or -1 when something cannot reach from there
 * or the relocated instructions do not fit. */
int jump_fill_slot(struct jump_plan *jp, uint64_t addr, const uint8_t *code, uint64_t slot,
		   uint64_t trap, uint8_t *out);
/* The bytes that turn a slot into a plain way through, once the engine is
 * gone: nops over its stop and over the swap of the return address, from
 * JUMP_STOP_OFFSET to JUMP_RESTORE_OFFSET (a thread a signal interrupted in
 * the slot may come back to it after a detach). */
#define JUMP_PASS_LEN (JUMP_RESTORE_OFFSET - JUMP_STOP_OFFSET)
void jump_pass_bytes(uint8_t *out);
/* The five bytes that replace the function's first ones. */
void jump_patch_bytes(uint64_t addr, uint64_t slot, uint8_t *patch);
/* Where a thread stopped at `rip` inside the slot continues in the
 * original code once the patch is gone; *r11_saved tells whether its %r11
 * must first be reloaded from -8(%rsp).  A thread in the middle of what
 * stands for one displaced instruction (an emulated call, a widened jcc)
 * keeps its `rip`: the slot stays mapped as a way through. */
uint64_t jump_rip_back(const struct jump_plan *jp, uint64_t addr, uint64_t slot, uint64_t rip,
		       int *r11_saved);

#endif
