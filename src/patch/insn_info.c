/*
 * insn_info.c - one instruction's facts from capstone's detail (see
 * insn_info.h).
 *
 * The emulated kinds are narrow on purpose: no legacy prefix (a 0x66
 * would change the operand size, a lock would fault), general-purpose
 * registers of the width the emulation handles.
 */
#include "insn_info.h"

#include <string.h>
#include "decoder.h"

/* Capstone's register -> x86 register number (0 = rax .. 15 = r15), of
 * the 64-bit registers (*wide = 1) and the 32-bit ones; -1 otherwise. */
static int register_number(x86_reg reg, int *wide)
{
	static const x86_reg regs64[16] = {
	    X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RBX, X86_REG_RSP, X86_REG_RBP,
	    X86_REG_RSI, X86_REG_RDI, X86_REG_R8,  X86_REG_R9,	X86_REG_R10, X86_REG_R11,
	    X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};
	static const x86_reg regs32[16] = {
	    X86_REG_EAX,  X86_REG_ECX,	X86_REG_EDX,  X86_REG_EBX,  X86_REG_ESP,  X86_REG_EBP,
	    X86_REG_ESI,  X86_REG_EDI,	X86_REG_R8D,  X86_REG_R9D,  X86_REG_R10D, X86_REG_R11D,
	    X86_REG_R12D, X86_REG_R13D, X86_REG_R14D, X86_REG_R15D,
	};
	for (int i = 0; i < 16; i++) {
		if (reg == regs64[i] || reg == regs32[i]) {
			*wide = reg == regs64[i];
			return i;
		}
	}
	return -1;
}

static int has_legacy_prefix(const cs_x86 *x)
{
	return x->prefix[0] || x->prefix[1] || x->prefix[2] || x->prefix[3];
}

static int operand_size_prefix(const cs_x86 *x)
{
	return x->prefix[2] == X86_PREFIX_OPSIZE;
}

/* A relative branch: its kind, target and displacement size. */
static void classify_branch(const cs_insn *insn, uint64_t target, struct insn_info *in)
{
	const cs_x86 *x = &insn->detail->x86;
	in->target = target;
	in->rel_size = x->encoding.imm_size;
	if (operand_size_prefix(x))
		in->kind = INSN_BRANCH; /* a 16-bit target: not one to follow */
	else if (insn->id == X86_INS_JMP)
		in->kind = INSN_JMP;
	else if (insn->id == X86_INS_CALL)
		in->kind = INSN_CALL;
	else
		in->kind = INSN_BRANCH;
}

/* push reg64, mov reg, reg (32 or 64 bits), add/sub $imm, %rsp. */
static void classify_register_op(const cs_insn *insn, struct insn_info *in)
{
	const cs_x86 *x = &insn->detail->x86;
	const cs_x86_op *op = x->operands;
	int wide, wide_src;
	if (has_legacy_prefix(x) || x->op_count < 1 || op[0].type != X86_OP_REG)
		return;
	int dst = register_number(op[0].reg, &wide);
	if (dst < 0)
		return;
	if (insn->id == X86_INS_PUSH && x->op_count == 1 && wide) {
		in->kind = INSN_PUSH;
		in->src = (uint8_t)dst;
	} else if (insn->id == X86_INS_MOV && x->op_count == 2 && op[1].type == X86_OP_REG &&
		   register_number(op[1].reg, &wide_src) >= 0 && wide_src == wide) {
		in->kind = INSN_MOV;
		in->dst = (uint8_t)dst;
		in->src = (uint8_t)register_number(op[1].reg, &wide_src);
		in->wide = (uint8_t)wide;
	} else if ((insn->id == X86_INS_ADD || insn->id == X86_INS_SUB) && x->op_count == 2 &&
		   op[0].reg == X86_REG_RSP && op[1].type == X86_OP_IMM &&
		   op[1].imm == (int32_t)op[1].imm) {
		in->kind = INSN_RSP_ADD;
		in->sub = insn->id == X86_INS_SUB;
		in->imm = (int32_t)op[1].imm;
	}
}

static void classify(const cs_insn *insn, struct insn_info *in)
{
	const cs_x86 *x = &insn->detail->x86;
	uint64_t target = decoder_branch_target(insn);
	if (target)
		classify_branch(insn, target, in);
	else if (insn->id == X86_INS_NOP || insn->id == X86_INS_ENDBR64)
		in->kind = INSN_NOP;
	else if (insn->id == X86_INS_RET && x->op_count == 0 && !operand_size_prefix(x))
		in->kind = INSN_RET;
	else
		classify_register_op(insn, in);
	in->rip_disp_off = decoder_rip_disp_offset(insn);
}

int insn_info_decode(const uint8_t *code, size_t avail, uint64_t address, struct insn_info *in)
{
	static cs_insn *insn;
	if (!insn && !(insn = decoder_insn_buffer()))
		return 0;
	const uint8_t *p = code;
	uint64_t at = address;
	memset(in, 0, sizeof(*in));
	if (decoder_next(&p, &avail, &at, insn) < 0)
		return 0;
	in->len = (uint8_t)insn->size;
	classify(insn, in);
	return in->len;
}
