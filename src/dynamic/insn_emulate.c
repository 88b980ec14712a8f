/*
 * insn_emulate.c - entry plans: emulate a function's first instructions in
 * the tracer, or prepare their out-of-line copy (see insn_emulate.h).
 */
#include "insn_emulate.h"

#include <stddef.h>
#include <string.h>
#include "insn_decode.h"

#define REG_RSP 4
#define REG_RBP 5

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

static int is_endbr64(const uint8_t *c, const struct x86_insn *in)
{
	return in->len == 4 && c[0] == 0xf3 && c[1] == 0x0f && c[2] == 0x1e && c[3] == 0xfa;
}

static int is_nop(const struct x86_insn *in)
{
	if (in->vex)
		return 0;
	if (in->map == MAP_ONE && in->opcode == 0x90 && !(in->rex & 1) && !in->rep)
		return 1;
	return in->map == MAP_0F && in->opcode == 0x1f && ((in->modrm >> 3) & 7) == 0;
}

static int is_plain(const struct x86_insn *in)
{
	return !in->vex && !in->opsize16 && !in->rep && !in->repne && in->map == MAP_ONE;
}

static int is_ret(const uint8_t *c, const struct x86_insn *in)
{
	(void)c;
	return !in->vex && in->map == MAP_ONE && in->opcode == 0xc3 && !in->opsize16;
}

/* push %reg: 50+r. */
static int match_push(const struct x86_insn *in, struct emu_op *op)
{
	if (!is_plain(in) || in->opcode < 0x50 || in->opcode > 0x57)
		return 0;
	op->kind = EMU_PUSH;
	op->src = (uint8_t)((in->opcode & 7) | ((in->rex & 1) << 3));
	return 1;
}

/* mov %reg, %reg: 89 /r or 8b /r with mod = 3. */
static int match_mov(const struct x86_insn *in, struct emu_op *op)
{
	if (!is_plain(in) || (in->opcode != 0x89 && in->opcode != 0x8b) || (in->modrm >> 6) != 3)
		return 0;
	unsigned reg = ((in->modrm >> 3) & 7) | ((in->rex & 4) << 1);
	unsigned rm = (in->modrm & 7) | ((in->rex & 1) << 3);
	op->kind = EMU_MOV;
	op->wide = (in->rex & 8) != 0;
	op->dst = (uint8_t)(in->opcode == 0x89 ? rm : reg);
	op->src = (uint8_t)(in->opcode == 0x89 ? reg : rm);
	return op->dst != REG_RSP;
}

/* sub/add $imm, %rsp: REX.W 83 /5 ib, 81 /5 id (sub) and /0 (add). */
static int match_rsp_adjust(const struct x86_insn *in, struct emu_op *op)
{
	if (!is_plain(in) || (in->opcode != 0x83 && in->opcode != 0x81) || !(in->rex & 8) ||
	    (in->rex & 1) || in->modrm != (0xc0 | (in->modrm & 0x38) | REG_RSP))
		return 0;
	unsigned ext = (in->modrm >> 3) & 7;
	if (ext != 5 && ext != 0)
		return 0;
	op->kind = EMU_ADD_RSP;
	op->sub = ext == 5;
	op->imm = (int32_t)in->imm;
	return 1;
}

static int is_jmp(const struct x86_insn *in)
{
	return !in->vex && in->map == MAP_ONE && (in->opcode == 0xe9 || in->opcode == 0xeb) &&
	       !in->opsize16;
}

static int is_relative_branch(const struct x86_insn *in)
{
	return in->rel_size != 0;
}

/* Out of line for the first instruction, when it can be copied. */
static enum plan_result plan_out_of_line(struct entry_plan *plan, const uint8_t *code, size_t avail)
{
	struct x86_insn in;
	if (x86_decode(code, avail, &in) == 0 || is_relative_branch(&in))
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
		struct x86_insn in;
		struct emu_op op = {0};
		if (x86_decode(code + off, avail - off, &in) == 0)
			break;
		if (is_endbr64(code + off, &in) || is_nop(&in)) {
			off += in.len;
			continue;
		}
		if (is_jmp(&in)) {
			plan->kind = PLAN_EMULATE;
			plan->resume = addr + off + in.len + (uint64_t)in.imm;
			return PLAN_OK;
		}
		if (is_ret(code + off, &in)) {
			if (stack_moved)
				break;
			plan->kind = PLAN_RETURN;
			return PLAN_OK;
		}
		if (match_push(&in, &op)) {
			if (stack_moved > 1 || plan->npushes == PLAN_MAX_PUSHES)
				break;
			plan->npushes++;
			stack_moved = 1;
		} else if (match_rsp_adjust(&in, &op)) {
			stack_moved = 2; /* no pushes after this: keeps the writes contiguous */
		} else if (!match_mov(&in, &op)) {
			break;
		}
		plan->ops[plan->nops++] = op;
		off += in.len;
	}
	if (off == 0)
		return plan_out_of_line(plan, code, avail);
	plan->kind = PLAN_EMULATE;
	plan->resume = addr + off;
	return PLAN_OK;
}

int plan_fill_slot(struct entry_plan *plan, uint64_t addr, const uint8_t *code, uint64_t slot_addr,
		   uint8_t *slot)
{
	struct x86_insn in;
	unsigned len = plan->ool_len;
	if (x86_decode(code, len, &in) != (int)len)
		return -1;
	memset(slot, 0xcc, OOL_SLOT_SIZE);
	memcpy(slot, code, len);
	if (in.rip_disp_off) {
		int32_t disp;
		memcpy(&disp, code + in.rip_disp_off, 4);
		int64_t moved = (int64_t)disp + (int64_t)(addr - slot_addr);
		if (moved != (int32_t)moved)
			return -1;
		int32_t fixed = (int32_t)moved;
		memcpy(slot + in.rip_disp_off, &fixed, 4);
	}
	/* jmp *0(%rip); .quad addr + len */
	static const uint8_t jmp_abs[6] = {0xff, 0x25, 0, 0, 0, 0};
	uint64_t back = addr + len;
	memcpy(slot + len, jmp_abs, sizeof(jmp_abs));
	memcpy(slot + len + sizeof(jmp_abs), &back, 8);
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
