/*
 * arch.h (aarch64) - what differs per architecture (see x86_64/arch.h for
 * the interface): the virtual counter cntvct_el0 for the clock, system
 * calls with svc, the AAPCS64 registers of a signal context, glibc's
 * jmp_buf layout on aarch64.
 */
#ifndef CALLTRACE_ARCH_AARCH64_H
#define CALLTRACE_ARCH_AARCH64_H

#include <elf.h>
#include <setjmp.h>
#include <stdint.h>
#include <ucontext.h>

#define ARCH_NAME "aarch64"
#define ARCH_ELF_MACHINE EM_AARCH64
/* The in-process patching engine is here; the ptrace engine is x86-64
 * only. */
#define ARCH_HAS_PATCH_ENGINE 1
/* Debian's folders of the architecture's libraries (multiarch). */
#define ARCH_LIBRARY_DIRS "/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu"
/* Words of the runtime's own jump buffer (probe_jump.c). */
#define ARCH_PROBE_WORDS 22
/* Arguments and return values are captured (--args): AAPCS64 places
 * them (arg_placement.c), read from the stubs' registers (stub_values.c). */
#define ARCH_HAS_ARGS 1
#define ARCH_HAS_PTRACE_ENGINE 0

/* The in-process engine's code (see x86_64/arch.h): the entry is one B
 * (+-128 MiB); the trampoline's head is adr x16, record; ldr x17, =stub;
 * br x17.  Code is written in place (mprotect, store, cache cleared): under
 * qemu-user a write through /proc/self/mem would not reach the guest's
 * translated code.  The mark is BRK #0. */
#define ARCH_JUMP_LEN 4
#define ARCH_JUMP_REACH (1ull << 27)
#define ARCH_TRAMPOLINE_HEAD_MAX 20
#define ARCH_CODE_THROUGH_PROC_MEM 0
#define ARCH_PATCH_LAZY 1
/* A call's return address is in the link register: the function's
 * prologue saves it where its frame has room, not always in the slot the
 * stubs swap (patch_shadow.c finds it there for the unwinder). */
#define ARCH_RETURN_ADDRESS_MOVES 1
/* The si_code of the SIGTRAP a mark raises: a BRK is a breakpoint. */
#define ARCH_MARK_SI_CODE 1 /* TRAP_BRKPT */
#define ARCH_MARK_LEN 4
static const uint8_t arch_mark[ARCH_MARK_LEN] = {0x00, 0x00, 0x20, 0xd4};

/* The virtual counter (readable at EL0 under Linux); the isb keeps it
 * from being read ahead of the code before it. */
static inline uint64_t arch_counter_read(void)
{
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}

/* The generic timer's counter has a constant rate by the architecture's
 * definition (cntfrq_el0), in every power state. */
static inline int arch_counter_invariant(void)
{
	uint64_t hz;
	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(hz));
	return hz != 0;
}

/* A system call made here, not through the C library (whose functions
 * may be patched); the kernel's return value (-errno on failure). */
static inline long arch_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

static inline uint64_t arch_context_pc(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.pc;
}

static inline uint64_t arch_context_sp(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.sp;
}

/* x16 (IP0): the register trampolines may use between a call and its
 * target under AAPCS64. */
static inline uint64_t arch_context_trampoline_scratch(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.regs[16];
}

static inline void arch_context_set_pc(ucontext_t *uc, uint64_t pc)
{
	uc->uc_mcontext.pc = pc;
}

/* A BRK leaves the program counter on itself. */
static inline uint64_t arch_context_mark_at(const ucontext_t *uc)
{
	return arch_context_pc(uc);
}

/* B to `to` from `from` in out[4] (little-endian); -1 when it does not
 * reach. */
static inline int arch_encode_jump(uint64_t from, uint64_t to, uint8_t out[ARCH_JUMP_LEN])
{
	int64_t d = (int64_t)(to - from);
	if ((d & 3) || d < -(int64_t)ARCH_JUMP_REACH || d >= (int64_t)ARCH_JUMP_REACH)
		return -1;
	uint32_t insn = 0x14000000u | ((uint32_t)(d >> 2) & 0x03ffffffu);
	for (int i = 0; i < 4; i++)
		out[i] = (uint8_t)(insn >> (8 * i));
	return 0;
}

/* One aligned 32-bit store: a thread meets the old instruction or the
 * branch, never a mix; the instruction cache is cleared after. */
static inline void arch_store_jump(volatile uint8_t *code, const uint8_t jump[ARCH_JUMP_LEN])
{
	uint32_t insn = (uint32_t)jump[0] | (uint32_t)jump[1] << 8 | (uint32_t)jump[2] << 16 |
			(uint32_t)jump[3] << 24;
	__atomic_store_n((volatile uint32_t *)code, insn, __ATOMIC_SEQ_CST);
	__builtin___clear_cache((char *)code, (char *)code + 4);
}

/* glibc on aarch64 keeps sp in __jmpbuf[13], xor'ed with the pointer
 * guard; the guard is learnt once from a jmp_buf of our own (jmpbuf.c). */
uint64_t arch_jmpbuf_sp(const struct __jmp_buf_tag *env);

/* Library calls (see x86_64/arch.h): the relocations; x0-x7; a
 * trampoline `ldr x16, site; ldr x17, stub; br x17` and the two
 * addresses (x16 and x17 are free between a call and a function of
 * another module: the PLT uses them too). */
#define ARCH_RELOC_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define ARCH_RELOC_GLOB_DAT R_AARCH64_GLOB_DAT
#define ARCH_LIBCALL_GP_ARGS 8
#define ARCH_LIBCALL_TRAMPOLINE 32

/* p is 32-byte aligned: instructions and addresses are stored whole. */
static inline void arch_libcall_trampoline(uint8_t p[ARCH_LIBCALL_TRAMPOLINE], uint64_t site,
					   uint64_t stub)
{
	uint32_t *code = (uint32_t *)p;
	uint64_t *data = (uint64_t *)(p + 16);
	code[0] = 0x58000090u; /* ldr x16, .+16 */
	code[1] = 0x580000b1u; /* ldr x17, .+20 */
	code[2] = 0xd61f0220u; /* br x17 */
	code[3] = 0xd4200000u; /* brk #0: never reached */
	data[0] = site;
	data[1] = stub;
}

/* `nop; ldr x17, .+12; br x17; brk; .quad stub` at pad (page-aligned): a
 * return lands on the ldr (the nop before it keeps the address minus four
 * in the pad). */
static inline uint64_t arch_libcall_landing_pad(uint8_t *pad, uint64_t stub)
{
	uint32_t *code = (uint32_t *)pad;
	code[0] = 0xd503201fu; /* nop */
	code[1] = 0x58000071u; /* ldr x17, .+12 */
	code[2] = 0xd61f0220u; /* br x17 */
	code[3] = 0xd4200000u; /* brk #0 */
	*(uint64_t *)(pad + 16) = stub;
	return (uint64_t)pad + 4;
}

static inline void arch_cpu_relax(void)
{
	__asm__ volatile("yield");
}

/* No x87: a long double is returned in v0 (AAPCS64, 128-bit). */
static inline void arch_read_x87_returns(uint8_t out[32], unsigned count)
{
	(void)count;
	for (int i = 0; i < 32; i++)
		out[i] = 0;
}

#endif
