/*
 * arch.h (x86-64) - what differs per architecture, behind the interface
 * every src/arch/<cpu>/arch.h gives: the ELF machine, the clock's counter,
 * raw system calls, a signal context's registers, the stack pointer of a
 * glibc jmp_buf, and the x87 return registers.  Included through
 * src/arch/arch.h, which picks the target's folder; the Makefile (ARCH)
 * builds the folder's sources (arch.mk).
 */
#ifndef CALLTRACE_ARCH_X86_64_H
#define CALLTRACE_ARCH_X86_64_H

#include <cpuid.h>
#include <elf.h>
#include <setjmp.h>
#include <stdint.h>
#include <ucontext.h>
#include <x86intrin.h>

#define ARCH_NAME "x86_64"
#define ARCH_ELF_MACHINE EM_X86_64
/* The in-process patching engine and the ptrace engine exist here. */
#define ARCH_HAS_PATCH_ENGINE 1
/* Debian's folders of the architecture's libraries (multiarch). */
#define ARCH_LIBRARY_DIRS "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu"
/* Words of the runtime's own jump buffer (probe_jump.c). */
#define ARCH_PROBE_WORDS 8
/* Arguments and return values are captured (--args): System V places
 * them (arg_placement.c), read from the stubs' registers (stub_values.c). */
#define ARCH_HAS_ARGS 1
#define ARCH_HAS_PTRACE_ENGINE 1

/* The in-process engine's code (patch_code.h, src/patch/): the entry jump
 * (jmp rel32) and how far it reaches; the trampoline's head (push %r11;
 * movabs; jmp through an absolute address at most); code pages written
 * through /proc/self/mem where the kernel lets it; entries marked at
 * start and patched at their first call (an int3 mark). */
#define ARCH_JUMP_LEN 5
#define ARCH_JUMP_REACH (1ull << 31)
#define ARCH_TRAMPOLINE_HEAD_MAX (12 + 14)
#define ARCH_CODE_THROUGH_PROC_MEM 1
#define ARCH_PATCH_LAZY 1
/* A call's return address stays where the call put it (the slot the
 * shadow stack swaps, patch_shadow.c). */
#define ARCH_RETURN_ADDRESS_MOVES 0
/* The si_code of the SIGTRAP a mark raises: an int3 is reported as the kernel's. */
#define ARCH_MARK_SI_CODE 0x80 /* SI_KERNEL */
#define ARCH_MARK_LEN 1
static const uint8_t arch_mark[ARCH_MARK_LEN] = {0xcc};

/* The time-stamp counter. */
static inline uint64_t arch_counter_read(void)
{
	return __rdtsc();
}

/* Whether the counter ticks at a constant rate, also in deep sleep (the
 * invariant TSC); else the clock is CLOCK_MONOTONIC. */
static inline int arch_counter_invariant(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return 0;
	__get_cpuid(0x80000007, &a, &b, &c, &d);
	return (d >> 8) & 1;
}

/* A system call made here, not through the C library (whose functions
 * may be patched); the kernel's return value (-errno on failure). */
static inline long arch_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	long rc;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
			 : "=a"(rc)
			 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return rc;
}

/* A signal context's program counter, stack pointer, and the scratch
 * register the patch trampolines keep the patched function's address in
 * (patch_stubs.S: %r11). */
static inline uint64_t arch_context_pc(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
}

static inline uint64_t arch_context_sp(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
}

static inline uint64_t arch_context_trampoline_scratch(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_R11];
}

static inline void arch_context_set_pc(ucontext_t *uc, uint64_t pc)
{
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}

/* Where the mark (int3) that stopped the thread is: the byte before the
 * program counter. */
static inline uint64_t arch_context_mark_at(const ucontext_t *uc)
{
	return arch_context_pc(uc) - 1;
}

/* The entry jump from `from` to `to` (jmp rel32) in out[ARCH_JUMP_LEN];
 * -1 when it does not reach. */
static inline int arch_encode_jump(uint64_t from, uint64_t to, uint8_t out[ARCH_JUMP_LEN])
{
	int64_t d = (int64_t)(to - (from + ARCH_JUMP_LEN));
	if (d < INT32_MIN || d > INT32_MAX)
		return -1;
	int32_t rel = (int32_t)d;
	out[0] = 0xe9;
	for (int i = 0; i < 4; i++)
		out[1 + i] = (uint8_t)((uint32_t)rel >> (8 * i));
	return 0;
}

/* Stores an encoded jump over a writable entry, its opcode last: a thread
 * running the entry meanwhile meets either the mark or the whole jump. */
static inline void arch_store_jump(volatile uint8_t *code, const uint8_t jump[ARCH_JUMP_LEN])
{
	for (int i = 1; i < ARCH_JUMP_LEN; i++)
		code[i] = jump[i];
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	code[0] = jump[0];
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* The stack pointer a jump to `env` lands with (glibc keeps it mangled:
 * xor'ed with the thread's pointer guard at %fs:0x30, rotated left by 17
 * bits); 0 where unknown. */
static inline uint64_t arch_jmpbuf_sp(const struct __jmp_buf_tag *env)
{
	uint64_t guard, mangled = (uint64_t)env->__jmpbuf[6];
	__asm__("mov %%fs:0x30, %0" : "=r"(guard));
	return (mangled >> 17 | mangled << 47) ^ guard;
}

/* Library calls (src/runtime/libcall_*): the relocations of the GOT
 * slots calls go through (a PLT's; -fno-plt's); the integer argument
 * registers the enter stub saves (libcall_stubs.S); a trampoline per slot,
 * `movabs $site, %r11; jmp *stub(%rip)` and the stub's address, in
 * ARCH_LIBCALL_TRAMPOLINE bytes. */
#define ARCH_RELOC_JUMP_SLOT R_X86_64_JUMP_SLOT
#define ARCH_RELOC_GLOB_DAT R_X86_64_GLOB_DAT
#define ARCH_LIBCALL_GP_ARGS 6
#define ARCH_LIBCALL_TRAMPOLINE 32

static inline void arch_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void arch_libcall_trampoline(uint8_t p[ARCH_LIBCALL_TRAMPOLINE], uint64_t site,
					   uint64_t stub)
{
	static const uint8_t head[16] = {0x49, 0xbb, 0,	   0,	 0, 0, 0, 0,
					 0,    0,    0xff, 0x25, 0, 0, 0, 0};
	for (int i = 0; i < ARCH_LIBCALL_TRAMPOLINE; i++)
		p[i] = i < 16 ? head[i] : 0xcc;
	arch_put_u64(p + 2, site);
	arch_put_u64(p + 16, stub);
}

/* The landing pad a caller-sensitive library call returns through, at
 * pad: `nop; jmp *(%rip); .quad stub`; returns where a return lands (one
 * past the nop, so that an unwinder looking at the address minus one finds
 * the pad). */
static inline uint64_t arch_libcall_landing_pad(uint8_t *pad, uint64_t stub)
{
	static const uint8_t code[7] = {0x90, 0xff, 0x25, 0, 0, 0, 0};
	for (int i = 0; i < 7; i++)
		pad[i] = code[i];
	arch_put_u64(pad + 7, stub);
	return (uint64_t)pad + 1;
}

/* A spinning thread's pause. */
static inline void arch_cpu_relax(void)
{
	__builtin_ia32_pause();
}

/* st(0) and st(1), where a long double (or complex long double) is
 * returned, 10 bytes each in 16: a copy of each pushed, then stored and
 * popped, so that the x87 stack stays as it was.  st(1) is read only for a
 * complex result (count 2): it is empty otherwise. */
static inline void arch_read_x87_returns(uint8_t out[32], unsigned count)
{
	for (int i = 0; i < 32; i++)
		out[i] = 0;
	__asm__ volatile("fld %%st(0)\n\tfstpt %0" : "=m"(*(uint8_t(*)[10])out));
	if (count == 2)
		__asm__ volatile("fld %%st(1)\n\tfstpt %0" : "=m"(*(uint8_t(*)[10])(out + 16)));
}

#endif
