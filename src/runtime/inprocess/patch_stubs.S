/*
 * patch_stubs.S - where a patched function's entry jump and its hijacked
 * return land (patch_engine.c).
 *
 * Both keep every register a call may clobber: a compiler that knows its
 * callee (gcc -fipa-ra) keeps values in the ones the callee leaves alone,
 * so the runtime's code in between must leave them as they were.  Each
 * asks the common case first (patch_fast.c, which uses no vector
 * register) and saves the vector registers only when it says 0 and the
 * checked path runs.
 *
 * runtime_patch_enter_stub: reached from a function's trampoline, which
 * pushed %r11 and put its struct patch_record in %r11; above that is the
 * call's return address.  Saves the registers (the argument registers as
 * the function got them, for runtime_patch_on_enter to read), asks
 * runtime_patch_enter_fast(record, &return address), then when it says 0
 * runtime_patch_on_enter(record, &return address, registers), puts every
 * register back and jumps where it said: the displaced instructions.
 * For the time of those calls the thread's runtime_patch_entering holds the
 * record (the outer value kept in the frame, for a signal handler's call
 * that comes meanwhile): a fault in the runtime then names the function
 * being entered (crash_site.c).
 *
 * runtime_patch_return_stub: a patched call's return address while it
 * runs.  Asks runtime_patch_return_fast(stack pointer), then when it says
 * 0 runtime_patch_on_return(registers, stack pointer), for the real return
 * address and goes there, every register as it was.
 */
#include "../../arch/x86_64/stub_macros.h"
#define EVERY_XMM 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15

	.text
	.globl runtime_patch_enter_stub
	.hidden runtime_patch_enter_stub
	.type runtime_patch_enter_stub, @function
runtime_patch_enter_stub:
	pushq %rbp            /* 8(%rbp): the caller's %r11, 16(%rbp): return address */
	movq %rsp, %rbp
	andq $-16, %rsp
	subq $336, %rsp       /* 320(%rsp): the outer runtime_patch_entering, 328: the record */
	SAVE_ARGS
	movq %r10, 56(%rsp)
	movq %r11, 328(%rsp)
	movq %r11, %rdi
	movq runtime_patch_entering@gottpoff(%rip), %rax
	movq %fs:(%rax), %rcx
	movq %rcx, 320(%rsp)
	movq %rdi, %fs:(%rax)
	leaq 16(%rbp), %rsi
	call runtime_patch_enter_fast
	testq %rax, %rax
	jnz 1f
	SAVE_XMM 64, EVERY_XMM
	movq 328(%rsp), %rdi
	leaq 16(%rbp), %rsi
	movq %rsp, %rdx
	call runtime_patch_on_enter
	LOAD_XMM 64, EVERY_XMM
1:	movq runtime_patch_entering@gottpoff(%rip), %rcx
	movq 320(%rsp), %rdx
	movq %rdx, %fs:(%rcx)
	movq 8(%rbp), %r11    /* the caller's */
	movq %rax, 8(%rbp)    /* where to go on */
	LOAD_ARGS
	movq 56(%rsp), %r10
	movq %rbp, %rsp
	popq %rbp
	leaq 8(%rsp), %rsp    /* no flags touched; the target stays in the red zone */
	jmp *-8(%rsp)
	.globl runtime_patch_enter_stub_end
	.hidden runtime_patch_enter_stub_end
runtime_patch_enter_stub_end:
	.size runtime_patch_enter_stub, . - runtime_patch_enter_stub

	.globl runtime_patch_return_stub
	.hidden runtime_patch_return_stub
	.type runtime_patch_return_stub, @function
	/* One byte before the label, so that an unwinder that looks up the
	 * return address minus one finds this function, not the one before. */
	nop
runtime_patch_return_stub:
	subq $8, %rsp         /* the slot the real return address goes in */
	pushq %rbp
	movq %rsp, %rbp
	andq $-16, %rsp
	subq $336, %rsp
	movq %rax, 0(%rsp)
	movq %rdx, 8(%rsp)
	movq %rcx, 16(%rsp)
	movq %rsi, 24(%rsp)
	movq %rdi, 32(%rsp)
	movq %r8, 40(%rsp)
	movq %r9, 48(%rsp)
	movq %r10, 56(%rsp)
	movq %r11, 64(%rsp)
	leaq 16(%rbp), %rdi
	call runtime_patch_return_fast
	testq %rax, %rax
	jnz 1f
	SAVE_XMM 80, EVERY_XMM
	movq %rsp, %rdi
	leaq 16(%rbp), %rsi
	call runtime_patch_on_return
	LOAD_XMM 80, EVERY_XMM
1:	movq %rax, 8(%rbp)
	movq 0(%rsp), %rax
	movq 8(%rsp), %rdx
	movq 16(%rsp), %rcx
	movq 24(%rsp), %rsi
	movq 32(%rsp), %rdi
	movq 40(%rsp), %r8
	movq 48(%rsp), %r9
	movq 56(%rsp), %r10
	movq 64(%rsp), %r11
	RETURN_BY_JUMP
	.size runtime_patch_return_stub, . - runtime_patch_return_stub

	.section .note.GNU-stack, "", @progbits
