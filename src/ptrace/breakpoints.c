/*
 * breakpoints.c - the breakpoint table of a process image and the int3s in
 * its code.
 *
 * A breakpoint is an int3 on the function's first byte, or a jmp over its
 * first instructions to a slot whose own int3 is the stop (jump_patch.h);
 * the table is keyed by the address of the int3 a thread stops at.
 * Breakpoints stay in place for the whole run: a hit never removes one
 * (the displaced instruction is emulated or run out of line), so threads
 * never race on a missing breakpoint.  They are removed only at detach,
 * when the jump slots become plain ways through.
 *
 * Below everything that plants or hits breakpoints; it calls only the
 * code patching helpers (jump_patch.c, insn_emulate.c) and tracee memory.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include "engine.h"

static size_t slot_of(uint64_t address, size_t size)
{
	return (size_t)((address * 0x9e3779b97f4a7c15ull) >> 20) & (size - 1);
}

struct breakpoint *bp_find(const struct bp_table *t, uint64_t address)
{
	if (t->size == 0)
		return NULL;
	for (size_t i = slot_of(address, t->size);; i = (i + 1) & (t->size - 1)) {
		struct breakpoint *bp = &t->slots[i];
		if (bp->address == address)
			return bp;
		if (bp->address == 0)
			return NULL;
	}
}

static int bp_grow(struct bp_table *t)
{
	size_t size = t->size ? t->size * 2 : 1024;
	struct breakpoint *slots = calloc(size, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->size; i++) {
		struct breakpoint *old = &t->slots[i];
		if (old->address == 0)
			continue;
		size_t j = slot_of(old->address, size);
		while (slots[j].address != 0)
			j = (j + 1) & (size - 1);
		slots[j] = *old;
	}
	free(t->slots);
	t->slots = slots;
	t->size = size;
	return 0;
}

struct breakpoint *bp_add(struct bp_table *t, uint64_t address)
{
	struct breakpoint *bp = bp_find(t, address);
	if (bp)
		return bp;
	if ((t->used + 1) * 2 > t->size && bp_grow(t) < 0)
		return NULL;
	size_t i = slot_of(address, t->size);
	while (t->slots[i].address != 0)
		i = (i + 1) & (t->size - 1);
	bp = &t->slots[i];
	memset(bp, 0, sizeof(*bp));
	bp->address = address;
	t->used++;
	return bp;
}

int bp_table_copy(struct bp_table *dst, const struct bp_table *src)
{
	memset(dst, 0, sizeof(*dst));
	if (src->size == 0)
		return 0;
	dst->slots = malloc(src->size * sizeof(*src->slots));
	if (!dst->slots)
		return -1;
	memcpy(dst->slots, src->slots, src->size * sizeof(*src->slots));
	dst->size = src->size;
	dst->used = src->used;
	return 0;
}

void bp_table_free(struct bp_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

int bp_insert(struct process *p, struct breakpoint *bp)
{
	static const uint8_t int3 = 0xcc;
	uint8_t patch[JUMP_PATCH_LEN];
	if (bp->patch_len == 1)
		return mem_poke_code(p, bp->function, &int3, 1);
	jump_patch_bytes(bp->function, bp->slot, patch);
	return mem_poke_code(p, bp->function, patch, JUMP_PATCH_LEN);
}

/* A jump entry's slot stays mapped: it becomes a way through that neither
 * stops nor swaps the return address. */
static int open_slot(struct process *p, const struct breakpoint *bp)
{
	uint8_t pass[JUMP_PASS_LEN];
	if (bp->plan.kind != PLAN_JUMP)
		return 0;
	jump_pass_bytes(pass);
	return mem_poke_code(p, bp->slot + JUMP_STOP_OFFSET, pass, sizeof(pass));
}

int bp_remove_all(struct process *p)
{
	int rc = 0;
	for (size_t i = 0; i < p->bps.size; i++) {
		struct breakpoint *bp = &p->bps.slots[i];
		if (bp->address == 0)
			continue;
		if (mem_poke_code(p, bp->function, bp->orig, bp->patch_len) < 0 ||
		    open_slot(p, bp) < 0)
			rc = -1;
	}
	return rc;
}

/* Removing from open addressing needs a rebuild; unloads are rare. */
void bp_forget_module(struct bp_table *t, uint16_t index)
{
	struct bp_table fresh = {0};
	for (size_t i = 0; i < t->size; i++) {
		struct breakpoint *bp = &t->slots[i];
		if (bp->address == 0 || bp->module == index)
			continue;
		struct breakpoint *copy = bp_add(&fresh, bp->address);
		if (copy)
			*copy = *bp;
	}
	bp_table_free(t);
	*t = fresh;
}

void bp_step_untraced(struct thread *t, const struct breakpoint *bp, struct user_regs_struct *r,
		      uint64_t ret)
{
	uint64_t pushed[PLAN_MAX_PUSHES];
	uint64_t entry_rsp = r->rsp;
	int n = plan_apply(&bp->plan, r, pushed);
	if (bp->plan.kind == PLAN_RETURN) {
		r->rip = ret;
		r->rsp += 8;
	} else if (n > 0) {
		mem_write(t->proc, entry_rsp - 8 * (uint64_t)n, pushed, 8 * (size_t)n);
	}
	ptrace(PTRACE_SETREGS, t->tid, 0, r);
}
