/*
 * kept_registers.c (x86-64) - what the in-process engine's and the library
 * calls' stubs must leave as it was:
 *   - every register a call may clobber, after a patched call whose
 *     function touches none but %rax (a compiler that knows its callee
 *     keeps values in the registers the callee leaves alone);
 *   - the values a library call takes and returns in vector registers
 *     (ldexp, fmax) and in %rax:%rdx (lldiv).
 *
 *   kept_registers N      N rounds; prints "kept N", or what changed
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* %rcx, %rdx, %rsi, %rdi, %r8-%r11, then %xmm0-15 (two words each). */
#define GPRS 8
#define WORDS (GPRS + 32)
struct regs {
	uint64_t in[WORDS], out[WORDS];
};

/* leaf: changes %eax only.  check_regs(struct regs *): loads every
 * register from in, calls leaf, stores them into out. */
__asm__(".text\n"
	".globl leaf\n.type leaf, @function\n"
	"leaf:\n\tmovl $7, %eax\n\tnop\n\tnop\n\tnop\n\tret\n"
	".size leaf, . - leaf\n"
	".globl check_regs\n.type check_regs, @function\n"
	"check_regs:\n\tpushq %rbx\n\tmovq %rdi, %rbx\n"
	"\tmovq 0(%rbx), %rcx\n\tmovq 8(%rbx), %rdx\n\tmovq 16(%rbx), %rsi\n"
	"\tmovq 24(%rbx), %rdi\n\tmovq 32(%rbx), %r8\n\tmovq 40(%rbx), %r9\n"
	"\tmovq 48(%rbx), %r10\n\tmovq 56(%rbx), %r11\n"
	"\t.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"\tmovdqu 64+16*\\i(%rbx), %xmm\\i\n\t.endr\n"
	"\tcall leaf\n"
	"\tmovq %rcx, 320(%rbx)\n\tmovq %rdx, 328(%rbx)\n\tmovq %rsi, 336(%rbx)\n"
	"\tmovq %rdi, 344(%rbx)\n\tmovq %r8, 352(%rbx)\n\tmovq %r9, 360(%rbx)\n"
	"\tmovq %r10, 368(%rbx)\n\tmovq %r11, 376(%rbx)\n"
	"\t.irp i,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"\tmovdqu %xmm\\i, 384+16*\\i(%rbx)\n\t.endr\n"
	"\tpopq %rbx\n\tret\n"
	".size check_regs, . - check_regs\n");
void check_regs(struct regs *r);

static const char *const gpr_names[GPRS] = {"rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"};

static int round_kept(long round)
{
	struct regs r;
	for (int i = 0; i < WORDS; i++)
		r.in[i] = 0x0101010101010101ull * (uint64_t)(i + 1) + (uint64_t)round;
	memset(r.out, 0, sizeof r.out);
	check_regs(&r);
	for (int i = 0; i < WORDS; i++) {
		if (r.in[i] == r.out[i])
			continue;
		if (i < GPRS)
			printf("round %ld: %%%s changed\n", round, gpr_names[i]);
		else
			printf("round %ld: %%xmm%d changed\n", round, (i - GPRS) / 2);
		return 0;
	}
	return 1;
}

static int values_kept(long round)
{
	volatile double x = 1.5 + (double)round, y = 0.25 * (double)round;
	volatile long long a = 1000003 * (round + 1), b = 7;
	double scaled = ldexp(x, 3), most = fmax(x, y);
	lldiv_t q = lldiv(a, b);
	if (scaled != x * 8 || most != (x > y ? x : y) || q.quot != a / b || q.rem != a % b) {
		printf("round %ld: a library call's values changed\n", round);
		return 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	for (long i = 0; i < n; i++)
		if (!round_kept(i) || !values_kept(i))
			return 1;
	printf("kept %ld\n", n);
	return 0;
}
