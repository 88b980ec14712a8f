/*
 * insn_emulate.c - entry plans: emulate a function's first instructions in
 * the tracer, or prepare their out-of-line copy (see insn_emulate.h).
 */
#include "insn_emulate.h"

#include <stddef.h>
#include <string.h>
#include "../patch/insn_info.h"
#include "../patch/patch.h"

#define ENC_RSP 4

unsigned long long *regs_by_number(struct user_regs_struct *r, unsigned n)
{
	static const size_t offsets[16] = {
	    offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rcx),
	    offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rbx),
	    offsetof(struct user_regs_struct, rsp), offsetof(struct user_regs_struct, rbp),
	    offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
	    offsetof(struct user_regs_struct, r8),  offsetof(struct user_regs_struct, r9),
	    offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
	    offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
	    offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
	};
	return (unsigned long long *)((char *)r + offsets[n & 15]);
}

/* Adds the op that emulates `in` to the plan; 0 when it is not one that
 * can be (or when the stack writes would not stay contiguous). */
static int add_op(struct entry_plan *plan, const struct insn_info *in, int *stack_moved)
{
	struct emu_op op = {0};
	if (in->kind == INSN_PUSH) {
		if (*stack_moved > 1 || plan->npushes == PLAN_MAX_PUSHES)
			return 0;
		op.kind = EMU_PUSH;
		op.src = in->src;
		plan->npushes++;
		*stack_moved = 1;
	} else if (in->kind == INSN_RSP_ADD) {
		op.kind = EMU_ADD_RSP;
		op.sub = in->sub;
		op.imm = in->imm;
		*stack_moved = 2; /* no pushes after this: keeps the writes contiguous */
	} else if (in->kind == INSN_MOV && in->dst != ENC_RSP) {
		op.kind = EMU_MOV;
		op.dst = in->dst;
		op.src = in->src;
		op.wide = in->wide;
	} else {
		return 0;
	}
	plan->ops[plan->nops++] = op;
	return 1;
}

/* Out of line for the first instruction, when the core can relocate it
 * (tried in place: a loop or jrcxz cannot be). */
static enum plan_result plan_out_of_line(struct entry_plan *plan, uint64_t addr,
					 const uint8_t *code, size_t avail)
{
	struct insn_info in;
	uint8_t trial[PATCH_RELOCATED_MAX];
	size_t len;
	if (insn_info_decode(code, avail, addr, &in) == 0 ||
	    patch_relocate(code, in.len, addr, trial, addr, &len) != PATCH_OK)
		return PLAN_UNPATCHABLE;
	plan->kind = PLAN_OUT_OF_LINE;
	plan->ool_len = in.len;
	plan->nops = 0;
	return PLAN_NEEDS_SLOT;
}

enum plan_result plan_build(struct entry_plan *plan, uint64_t addr, const uint8_t *code,
			    size_t avail)
{
	size_t off = 0;
	int stack_moved = 0;
	memset(plan, 0, sizeof(*plan));
	while (off < avail && plan->nops < PLAN_MAX_OPS) {
		struct insn_info in;
		if (insn_info_decode(code + off, avail - off, addr + off, &in) == 0)
			break;
		if (in.kind == INSN_NOP) {
			off += in.len;
			continue;
		}
		if (in.kind == INSN_JMP) {
			plan->kind = PLAN_EMULATE;
			plan->resume = in.target;
			return PLAN_OK;
		}
		if (in.kind == INSN_RET) {
			if (stack_moved)
				break;
			plan->kind = PLAN_RETURN;
			return PLAN_OK;
		}
		if (!add_op(plan, &in, &stack_moved))
			break;
		off += in.len;
	}
	if (off == 0)
		return plan_out_of_line(plan, addr, code, avail);
	plan->kind = PLAN_EMULATE;
	plan->resume = addr + off;
	return PLAN_OK;
}

int plan_fill_slot(struct entry_plan *plan, uint64_t addr, const uint8_t *code, uint64_t slot_addr,
		   uint8_t *slot)
{
	uint8_t moved[PATCH_RELOCATED_MAX];
	struct patch_layout layout;
	size_t len;
	if (patch_relocate_layout(code, plan->ool_len, addr, moved, slot_addr, &len, &layout) !=
		PATCH_OK ||
	    len > OOL_SLOT_SIZE)
		return -1;
	memset(slot, 0xcc, OOL_SLOT_SIZE);
	memcpy(slot, moved, len);
	plan->ool_back = layout.to[layout.n - 1];
	plan->resume = slot_addr;
	return 0;
}

static int parity_even(uint64_t v)
{
	return !__builtin_parity((unsigned)(v & 0xff));
}

/* %rsp +/- imm with the flags an add or sub sets. */
static void apply_rsp_adjust(const struct emu_op *op, struct user_regs_struct *r)
{
	uint64_t a = r->rsp, b = (uint64_t)(int64_t)op->imm;
	uint64_t res = op->sub ? a - b : a + b;
	uint64_t of = op->sub ? ((a ^ b) & (a ^ res)) >> 63 : (~(a ^ b) & (a ^ res)) >> 63;
	uint64_t cf = op->sub ? a < b : res < a;
	uint64_t flags = r->eflags & ~(uint64_t)0x8d5;
	flags |= cf;
	flags |= (uint64_t)parity_even(res) << 2;
	flags |= ((a ^ b ^ res) & 0x10);
	flags |= (uint64_t)(res == 0) << 6;
	flags |= (res >> 63) << 7;
	flags |= of << 11;
	r->eflags = flags;
	r->rsp = res;
}

int plan_apply(const struct entry_plan *plan, struct user_regs_struct *r, uint64_t *pushed)
{
	uint64_t order[PLAN_MAX_PUSHES];
	int n = 0;
	for (unsigned i = 0; i < plan->nops; i++) {
		const struct emu_op *op = &plan->ops[i];
		if (op->kind == EMU_PUSH) {
			order[n++] = *regs_by_number(r, op->src);
			r->rsp -= 8;
		} else if (op->kind == EMU_MOV) {
			uint64_t v = *regs_by_number(r, op->src);
			*regs_by_number(r, op->dst) = op->wide ? v : (uint32_t)v;
		} else {
			apply_rsp_adjust(op, r);
		}
	}
	for (int i = 0; i < n; i++)
		pushed[i] = order[n - 1 - i];
	if (plan->kind != PLAN_RETURN)
		r->rip = plan->resume;
	return n;
}
