/*
 * jmpbuf.c (aarch64) - the stack pointer a glibc jmp_buf jumps to.
 *
 * glibc on aarch64 stores sp in __jmpbuf[13] xor'ed with the pointer guard
 * (__pointer_chk_guard, private to the C library).  The guard is learnt
 * once from a jmp_buf of our own, whose sp is known: stored xor known.
 */
#include "arch.h"

#define GLIBC_AARCH64_JB_SP 13

static uint64_t pointer_guard;
static int guard_known;

static __attribute__((noinline)) void learn_guard(void)
{
	jmp_buf own;
	uint64_t sp;
	__asm__ volatile("mov %0, sp" : "=r"(sp));
	if (setjmp(own) == 0) {
		pointer_guard = (uint64_t)own[0].__jmpbuf[GLIBC_AARCH64_JB_SP] ^ sp;
		__atomic_store_n(&guard_known, 1, __ATOMIC_RELEASE);
	}
}

uint64_t arch_jmpbuf_sp(const struct __jmp_buf_tag *env)
{
	if (!__atomic_load_n(&guard_known, __ATOMIC_ACQUIRE))
		learn_guard();
	return (uint64_t)env->__jmpbuf[GLIBC_AARCH64_JB_SP] ^ pointer_guard;
}
