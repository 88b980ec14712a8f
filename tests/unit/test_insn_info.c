/*
 * test_insn_info.c - the shared patching core as the ptrace engine uses
 * it: one instruction's facts from capstone (lengths, %rip operands,
 * relative branches, the emulated kinds) on real encodings, the entry
 * plans made from them, and jump slots whose displaced instructions are
 * relocated by patch_relocate (a call pushing its original return address,
 * a short jcc widened, a %rip operand fixed up).
 */
#include "../../src/ptrace/insn_emulate.h"
#include "../../src/ptrace/jump_patch.h"
#include "../../src/patch/insn_info.h"
#include "../../src/patch/patch.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

#define AT 0x401000ull /* where the decoded code runs */

struct sample {
	const char *what;
	uint8_t bytes[15];
	uint8_t n;
	uint8_t len, kind, rip_disp_off, rel_size;
	uint64_t target;
};

static const struct sample samples[] = {
    {"endbr64", {0xf3, 0x0f, 0x1e, 0xfa}, 4, 4, INSN_NOP, 0, 0, 0},
    {"nop", {0x90}, 1, 1, INSN_NOP, 0, 0, 0},
    {"66 nop", {0x66, 0x90}, 2, 2, INSN_NOP, 0, 0, 0},
    {"nopl 0(%rax,%rax)", {0x0f, 0x1f, 0x44, 0, 0}, 5, 5, INSN_NOP, 0, 0, 0},
    {"cs nopw 0(%rax,%rax)",
     {0x66, 0x2e, 0x0f, 0x1f, 0x84, 0, 0, 0, 0, 0},
     10,
     10,
     INSN_NOP,
     0,
     0,
     0},
    {"pause (f3 90)", {0xf3, 0x90}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"xchg %eax,%r8d (41 90)", {0x41, 0x90}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"push %rbp", {0x55}, 1, 1, INSN_PUSH, 0, 0, 0},
    {"push %r12", {0x41, 0x54}, 2, 2, INSN_PUSH, 0, 0, 0},
    {"push %ax", {0x66, 0x50}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"pop %r15", {0x41, 0x5f}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"mov %rsp,%rbp", {0x48, 0x89, 0xe5}, 3, 3, INSN_MOV, 0, 0, 0},
    {"mov %edi,%eax (8b)", {0x8b, 0xc7}, 2, 2, INSN_MOV, 0, 0, 0},
    {"mov %eax,%fs", {0x8e, 0xe0}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"sub $8,%rsp", {0x48, 0x83, 0xec, 0x08}, 4, 4, INSN_RSP_ADD, 0, 0, 0},
    {"sub $0x100,%rsp", {0x48, 0x81, 0xec, 0, 1, 0, 0}, 7, 7, INSN_RSP_ADD, 0, 0, 0},
    {"sub $8,%rax", {0x48, 0x2d, 8, 0, 0, 0}, 6, 6, INSN_OTHER, 0, 0, 0},
    {"lea 0x10(%rip),%rax", {0x48, 0x8d, 0x05, 0x10, 0, 0, 0}, 7, 7, INSN_OTHER, 3, 0, 0},
    {"mov 0x10(%rip),%rax", {0x48, 0x8b, 0x05, 0x10, 0, 0, 0}, 7, 7, INSN_OTHER, 3, 0, 0},
    {"cmpq $0,0x10(%rip)", {0x48, 0x83, 0x3d, 0x10, 0, 0, 0, 0}, 8, 8, INSN_OTHER, 3, 0, 0},
    {"cmp 0x10(%rip),%di (66)", {0x66, 0x3b, 0x3d, 0x10, 0, 0, 0}, 7, 7, INSN_OTHER, 3, 0, 0},
    {"movdqa 0x10(%rip),%xmm0 (66)",
     {0x66, 0x0f, 0x6f, 0x05, 0x10, 0, 0, 0},
     8,
     8,
     INSN_OTHER,
     4,
     0,
     0},
    {"movdqu 0x10(%rip),%xmm0 (f3)",
     {0xf3, 0x0f, 0x6f, 0x05, 0x10, 0, 0, 0},
     8,
     8,
     INSN_OTHER,
     4,
     0,
     0},
    {"movsd 0x10(%rip),%xmm0 (f2)",
     {0xf2, 0x0f, 0x10, 0x05, 0x10, 0, 0, 0},
     8,
     8,
     INSN_OTHER,
     4,
     0,
     0},
    {"movw $0x1234,0x10(%rip)",
     {0x66, 0xc7, 0x05, 0x10, 0, 0, 0, 0x34, 0x12},
     9,
     9,
     INSN_OTHER,
     3,
     0,
     0},
    {"vmovdqa 0x10(%rip),%xmm0 (VEX2)",
     {0xc5, 0xf9, 0x6f, 0x05, 0x10, 0, 0, 0},
     8,
     8,
     INSN_OTHER,
     4,
     0,
     0},
    {"vbroadcastss 0x10(%rip),%ymm0 (VEX3)",
     {0xc4, 0xe2, 0x7d, 0x18, 0x05, 0x10, 0, 0, 0},
     9,
     9,
     INSN_OTHER,
     5,
     0,
     0},
    {"vmovaps 0x10(%rip),%zmm0 (EVEX)",
     {0x62, 0xf1, 0x7c, 0x48, 0x28, 0x05, 0x10, 0, 0, 0},
     10,
     10,
     INSN_OTHER,
     6,
     0,
     0},
    {"mov 0x10(%eip),%eax (67)", {0x67, 0x8b, 0x05, 0x10, 0, 0, 0}, 7, 7, INSN_OTHER, 3, 0, 0},
    {"mov 0x10,%eax (SIB, absolute)", {0x8b, 0x04, 0x25, 0x10, 0, 0, 0}, 7, 7, INSN_OTHER, 0, 0, 0},
    {"movabs 0x..,%eax", {0xa1, 1, 2, 3, 4, 5, 6, 7, 8}, 9, 9, INSN_OTHER, 0, 0, 0},
    {"je +5 (short)", {0x74, 0x05}, 2, 2, INSN_BRANCH, 0, 1, AT + 7},
    {"je +0x10 (near)", {0x0f, 0x84, 0x10, 0, 0, 0}, 6, 6, INSN_BRANCH, 0, 4, AT + 0x16},
    {"jne -2 (short, back)", {0x75, 0xfe}, 2, 2, INSN_BRANCH, 0, 1, AT},
    {"jmp +5 (short)", {0xeb, 0x05}, 2, 2, INSN_JMP, 0, 1, AT + 7},
    {"jmp +0x10 (near)", {0xe9, 0x10, 0, 0, 0}, 5, 5, INSN_JMP, 0, 4, AT + 0x15},
    {"bnd jmp (f2 e9)", {0xf2, 0xe9, 0x10, 0, 0, 0}, 6, 6, INSN_JMP, 0, 4, AT + 0x16},
    {"call +0x10", {0xe8, 0x10, 0, 0, 0}, 5, 5, INSN_CALL, 0, 4, AT + 0x15},
    {"call *0x10(%rip)", {0xff, 0x15, 0x10, 0, 0, 0}, 6, 6, INSN_OTHER, 2, 0, 0},
    {"jmp *%rax", {0xff, 0xe0}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"loop -2", {0xe2, 0xfe}, 2, 2, INSN_BRANCH, 0, 1, AT},
    {"jrcxz -2", {0xe3, 0xfe}, 2, 2, INSN_BRANCH, 0, 1, AT},
    {"xbegin +0x10", {0xc7, 0xf8, 0x10, 0, 0, 0}, 6, 6, INSN_BRANCH, 0, 4, AT + 0x16},
    {"ret", {0xc3}, 1, 1, INSN_RET, 0, 0, 0},
    {"rep ret", {0xf3, 0xc3}, 2, 2, INSN_RET, 0, 0, 0},
    {"ret $8", {0xc2, 8, 0}, 3, 3, INSN_OTHER, 0, 0, 0},
    {"retw (66 c3)", {0x66, 0xc3}, 2, 2, INSN_OTHER, 0, 0, 0},
    {"call cut short", {0xe8, 0x10, 0}, 3, 0, 0, 0, 0, 0},
    {"push %es (not in 64-bit mode)", {0x06}, 1, 0, 0, 0, 0, 0},
};

static void test_samples(void)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];
		struct insn_info in;
		int len = insn_info_decode(s->bytes, s->n, AT, &in);
		CHECK(len == s->len, "%s: length %d, not %d", s->what, len, s->len);
		if (len == 0)
			continue;
		CHECK(in.kind == s->kind, "%s: kind %d, not %d", s->what, in.kind, s->kind);
		CHECK(in.rip_disp_off == s->rip_disp_off, "%s: %%rip disp at %d, not %d", s->what,
		      in.rip_disp_off, s->rip_disp_off);
		CHECK(in.rel_size == s->rel_size, "%s: branch disp of %d bytes, not %d", s->what,
		      in.rel_size, s->rel_size);
		if (s->rel_size)
			CHECK(in.target == s->target, "%s: target %#llx, not %#llx", s->what,
			      (unsigned long long)in.target, (unsigned long long)s->target);
	}
}

/* The operands of the kinds the ptrace engine emulates. */
static void test_emulated_operands(void)
{
	struct insn_info in;
	insn_info_decode((const uint8_t[]){0x41, 0x54}, 2, AT, &in);
	CHECK(in.src == 12, "push %%r12: register %d", in.src);
	insn_info_decode((const uint8_t[]){0x4c, 0x89, 0xe7}, 3, AT, &in); /* mov %r12,%rdi */
	CHECK(in.kind == INSN_MOV && in.dst == 7 && in.src == 12 && in.wide,
	      "mov %%r12,%%rdi: %d <- %d wide %d", in.dst, in.src, in.wide);
	insn_info_decode((const uint8_t[]){0x89, 0xf3}, 2, AT, &in); /* mov %esi,%ebx */
	CHECK(in.kind == INSN_MOV && in.dst == 3 && in.src == 6 && !in.wide,
	      "mov %%esi,%%ebx: %d <- %d wide %d", in.dst, in.src, in.wide);
	insn_info_decode((const uint8_t[]){0x48, 0x83, 0xec, 0xf8}, 4, AT, &in); /* sub $-8,%rsp */
	CHECK(in.kind == INSN_RSP_ADD && in.sub && in.imm == -8, "sub $-8,%%rsp: sub %d imm %d",
	      in.sub, in.imm);
	insn_info_decode((const uint8_t[]){0x48, 0x81, 0xc4, 0, 1, 0, 0}, 7, AT, &in);
	CHECK(in.kind == INSN_RSP_ADD && !in.sub && in.imm == 0x100, "add $0x100,%%rsp: %d %d",
	      in.sub, in.imm);
	/* lock sub: capstone refuses it on a register, so it is never emulated */
	CHECK(insn_info_decode((const uint8_t[]){0xf0, 0x48, 0x83, 0xec, 8}, 5, AT, &in) == 0 ||
		  in.kind == INSN_OTHER,
	      "lock sub $8,%%rsp is not emulated");
}

static void test_entry_plans(void)
{
	struct entry_plan plan;
	/* endbr64; push %rbp; mov %rsp,%rbp; push %rbx; sub $0x18,%rsp; mov (%rdi),%rax */
	static const uint8_t prologue[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5,
					   0x53, 0x48, 0x83, 0xec, 0x18, 0x48, 0x8b, 0x07};
	CHECK(plan_build(&plan, AT, prologue, sizeof(prologue)) == PLAN_OK, "prologue planned");
	CHECK(plan.kind == PLAN_EMULATE && plan.nops == 4 && plan.npushes == 2 &&
		  plan.resume == AT + 13,
	      "prologue: kind %d, %d ops, %d pushes, resume +%lld", plan.kind, plan.nops,
	      plan.npushes, (long long)(plan.resume - AT));
	struct user_regs_struct r = {.rsp = 0x7000, .rbp = 11, .rbx = 22, .rip = AT};
	uint64_t pushed[PLAN_MAX_PUSHES];
	int n = plan_apply(&plan, &r, pushed);
	CHECK(n == 2 && pushed[0] == 22 && pushed[1] == 11, "pushes: %d, %llu %llu", n,
	      (unsigned long long)pushed[0], (unsigned long long)pushed[1]);
	CHECK(r.rsp == 0x7000 - 16 - 0x18 && r.rbp == 0x7000 - 8 && r.rip == AT + 13,
	      "after the prologue: rsp %#llx rbp %#llx", r.rsp, r.rbp);

	CHECK(plan_build(&plan, AT, (const uint8_t[]){0xf3, 0x0f, 0x1e, 0xfa, 0xc3}, 5) ==
		      PLAN_OK &&
		  plan.kind == PLAN_RETURN,
	      "endbr64; ret returns at once");
	CHECK(plan_build(&plan, AT, (const uint8_t[]){0xe9, 0x10, 0, 0, 0}, 5) == PLAN_OK &&
		  plan.kind == PLAN_EMULATE && plan.resume == AT + 0x15,
	      "jmp: emulated, resume at its target");
	CHECK(plan_build(&plan, AT, (const uint8_t[]){0xe2, 0xfe, 0x90}, 3) == PLAN_UNPATCHABLE,
	      "a loop first cannot go out of line");

	/* mov 0x100(%rip),%rax out of line, 0x1000 further: its disp shrinks. */
	static const uint8_t load[] = {0x48, 0x8b, 0x05, 0x00, 0x01, 0, 0, 0xc3};
	uint8_t slot[OOL_SLOT_SIZE];
	CHECK(plan_build(&plan, AT, load, sizeof(load)) == PLAN_NEEDS_SLOT &&
		  plan.kind == PLAN_OUT_OF_LINE && plan.ool_len == 7,
	      "a %%rip load goes out of line");
	CHECK(plan_fill_slot(&plan, AT, load, AT + 0x1000, slot) == 0, "its slot is filled");
	int32_t disp, back;
	memcpy(&disp, slot + 3, 4);
	memcpy(&back, slot + 8, 4);
	CHECK(memcmp(slot, load, 3) == 0 && disp == 0x100 - 0x1000, "slot disp %d", disp);
	CHECK(slot[7] == 0xe9 && AT + 0x1000 + 12 + (uint64_t)(int64_t)back == AT + 7 &&
		  plan.ool_back == 7,
	      "the slot jumps back behind the instruction");
	CHECK(plan_fill_slot(&plan, AT, load, AT + (3ull << 31), slot) < 0,
	      "a slot beyond the disp's reach is refused");
}

/* A call or a jcc first goes out of line relocated: the call pushes the
 * original return address, the jcc reaches its target from the slot. */
static void test_out_of_line_branches(void)
{
	struct entry_plan plan;
	uint8_t slot[OOL_SLOT_SIZE];
	static const uint8_t call[] = {0xe8, 0x10, 0, 0, 0, 0xc3}; /* call +0x10; ret */
	CHECK(plan_build(&plan, AT, call, sizeof(call)) == PLAN_NEEDS_SLOT && plan.ool_len == 5,
	      "a call first goes out of line");
	CHECK(plan_fill_slot(&plan, AT, call, AT + 0x1000, slot) == 0, "its slot is filled");
	uint32_t lo, hi;
	memcpy(&lo, slot + 8, 4);
	memcpy(&hi, slot + 16, 4);
	int32_t rel;
	memcpy(&rel, slot + 21, 4);
	CHECK(((uint64_t)hi << 32 | lo) == AT + 5 && slot[20] == 0xe9 &&
		  AT + 0x1000 + 25 + (uint64_t)(int64_t)rel == AT + 0x15,
	      "it pushes %#llx and jumps to the callee",
	      (unsigned long long)((uint64_t)hi << 32 | lo));
	CHECK(plan.ool_back == 25 && slot[25] == 0xe9, "the jump back follows (at %d)",
	      plan.ool_back);

	static const uint8_t jcc[] = {0x74, 0x05, 0x90}; /* je +5 */
	CHECK(plan_build(&plan, AT, jcc, sizeof(jcc)) == PLAN_NEEDS_SLOT &&
		  plan_fill_slot(&plan, AT, jcc, AT + 0x1000, slot) == 0,
	      "a jcc first goes out of line");
	memcpy(&rel, slot + 2, 4);
	CHECK(slot[0] == 0x0f && slot[1] == 0x84 &&
		  AT + 0x1000 + 6 + (uint64_t)(int64_t)rel == AT + 7 && plan.ool_back == 6,
	      "widened to its original target");
}

/* endbr64; call f; ... : a jump entry whose slot emulates the call. */
static void test_jump_slot_with_call(void)
{
	static const uint8_t code[] = {0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0x27, 0,
				       0,    0, /* call +0x27 */
				       0x83, 0xc0, 0x01, 0xc3, 0x90, 0x90, 0x90};
	struct branch_targets bt = {0};
	struct jump_plan jp;
	uint8_t slot[JUMP_SLOT_SIZE];
	const uint64_t at = AT + 0x2000, trap = AT + 0x1f00;
	CHECK(jump_plan_build(&jp, AT, code, sizeof(code), &bt) == 1 && jp.len == 9,
	      "endbr64; call: a jump entry displacing 9 bytes (len %d)", jp.len);
	CHECK(jump_fill_slot(&jp, AT, code, at, trap, slot) == 0, "its slot is filled");
	const uint8_t *moved = slot + JUMP_MOVED_OFFSET;
	CHECK(memcmp(moved, code, 4) == 0, "endbr64 copied");
	/* lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp); jmp f */
	uint32_t lo, hi;
	memcpy(&lo, moved + 4 + 8, 4);
	memcpy(&hi, moved + 4 + 16, 4);
	CHECK(moved[4] == 0x48 && moved[5] == 0x8d && moved[9] == 0xc7 &&
		  ((uint64_t)hi << 32 | lo) == AT + 9,
	      "the call pushes its original return address %#llx",
	      (unsigned long long)((uint64_t)hi << 32 | lo));
	int32_t rel;
	memcpy(&rel, moved + 25, 4);
	uint64_t callee = at + JUMP_MOVED_OFFSET + 29 + (uint64_t)(int64_t)rel;
	CHECK(moved[24] == 0xe9 && callee == AT + 9 + 0x27, "and jumps to the callee %#llx",
	      (unsigned long long)callee);
	CHECK(jp.nbounds == 3 && jp.from[1] == 4 && jp.to[1] == 4 && jp.from[2] == 9 &&
		  jp.to[2] == 29,
	      "layout: %d bounds", jp.nbounds);
	int saved;
	CHECK(jump_rip_back(&jp, AT, at, at + JUMP_MOVED_OFFSET + 4, &saved) == AT + 4,
	      "a thread at the call's stand-in goes back to the call");
	CHECK(jump_rip_back(&jp, AT, at, at + JUMP_MOVED_OFFSET + 9, &saved) ==
		  at + JUMP_MOVED_OFFSET + 9,
	      "a thread inside the stand-in stays in the slot");
	CHECK(jump_rip_back(&jp, AT, at, at + JUMP_MOVED_OFFSET + 29, &saved) == AT + 9,
	      "a thread at the jump back goes behind the displaced bytes");
	CHECK(jump_rip_back(&jp, AT, at, at + JUMP_STOP_OFFSET + 1, &saved) == AT && saved,
	      "a thread at the stop restarts the function with %%r11 saved");
}

/* test %edi,%edi; je +7; mov 0x10(%rip),%eax: the jcc widened, the disp
 * fixed. */
static void test_jump_slot_with_jcc(void)
{
	static const uint8_t code[] = {0x85, 0xff, 0x74, 0x07, 0x8b, 0x05, 0x10, 0,
				       0,    0,	   0xc3, 0x31, 0xc0, 0xc3, 0x90, 0x90};
	struct branch_targets bt = {0};
	struct jump_plan jp;
	uint8_t slot[JUMP_SLOT_SIZE];
	const uint64_t at = AT - 0x3000;
	CHECK(jump_plan_build(&jp, AT, code, sizeof(code), &bt) == 1 && jp.len == 10,
	      "test; je; mov: displaces 10 bytes (len %d)", jp.len);
	CHECK(jump_fill_slot(&jp, AT, code, at, AT + 0x100, slot) == 0, "its slot is filled");
	const uint8_t *moved = slot + JUMP_MOVED_OFFSET;
	int32_t rel, disp;
	memcpy(&rel, moved + 4, 4);
	CHECK(moved[2] == 0x0f && moved[3] == 0x84 &&
		  at + JUMP_MOVED_OFFSET + 8 + (uint64_t)(int64_t)rel == AT + 11,
	      "je widened to rel32, still to the original target");
	memcpy(&disp, moved + 10, 4);
	CHECK(moved[8] == 0x8b &&
		  at + JUMP_MOVED_OFFSET + 14 + (uint64_t)(int64_t)disp == AT + 10 + 0x10,
	      "the %%rip load reaches the same address");

	/* A branch of the module into the displaced bytes forbids the jump. */
	uint64_t inside = AT + 4;
	struct branch_targets into = {.v = &inside, .n = 1};
	CHECK(jump_plan_build(&jp, AT, code, sizeof(code), &into) == 0,
	      "a branch into the displaced bytes forbids the jump");
}

/* The module sweep: targets of every relative branch, and bytes not known. */
static void test_branch_targets(void)
{
	static const uint8_t text[] = {
	    0x55, 0x48, 0x89, 0xe5, 0x53,	      /* +0 push; mov %rsp,%rbp; push */
	    0x74, 0x02,				      /* +5 je +2 */
	    0x06,				      /* +7 not an instruction in 64-bit mode */
	    0x90, 0xe8, 0xf2, 0xff, 0xff, 0xff,	      /* +8 nop; +9 call +0 */
	    0xc3, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, /* +14 ret; padding */
	};
	struct branch_targets bt;
	CHECK(branch_targets_collect(&bt, text, sizeof(text), AT) == 0, "sweep");
	CHECK(bt.n == 2 && bt.v[0] == AT && bt.v[1] == AT + 9, "targets: %zu", bt.n);
	CHECK(bt.nunknown == 1 && bt.unknown[0] == AT + 7, "unknown bytes: %zu", bt.nunknown);
	struct jump_plan jp;
	CHECK(jump_plan_build(&jp, AT, text, 15, &bt) == 0,
	      "a function with bytes not decoded gets no jump");
	struct branch_targets known = bt;
	known.nunknown = 0;
	CHECK(jump_plan_build(&jp, AT, text, 15, &known) == 1 && jp.len == 5,
	      "the same function, all decoded, gets one");
	branch_targets_free(&bt);
}

int main(void)
{
	test_samples();
	test_emulated_operands();
	test_entry_plans();
	test_out_of_line_branches();
	test_jump_slot_with_call();
	test_jump_slot_with_jcc();
	test_branch_targets();
	return CHECK_SUMMARY("insn_info");
}
