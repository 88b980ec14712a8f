/*
 * libcall_stubs.S - where a hooked GOT slot's trampoline lands (libcall.h).
 *
 * runtime_libcall_enter_stub: %r11 holds the struct libcall_site, the top
 * of the stack the call's return address.  Saves the argument registers
 * (%rdi, %rsi, %rdx, %rcx, %r8, %r9, %rax for a variadic call's count),
 * asks runtime_libcall_enter_fast(site, &return address) (libcall_fast.c,
 * which uses no vector register) for the function's address; when it
 * says 0, saves %xmm0-7 too and asks runtime_libcall_on_enter(site,
 * &return address, registers).  Puts them back and jumps to the address
 * returned: the function called.  The other registers a call may clobber are left to
 * the function called: the caller expects them clobbered (it called
 * another module, whose code it cannot know), and so may the runtime.
 *
 * runtime_libcall_return_stub: a library call's return address while it
 * runs.  Keeps what a function returns (%rax, %rdx, %xmm0, %xmm1; the x87
 * stack is left alone, the runtime never touches it) and asks
 * runtime_libcall_return_fast(stack pointer), then when it says 0 (with
 * %xmm0 and %xmm1 saved) runtime_patch_libcall_return(registers, stack
 * pointer) for the real return address.  The caller expects every other register a call may
 * clobber clobbered.
 */
#include "../../arch/x86_64/stub_macros.h"

	.text
	.globl runtime_libcall_enter_stub
	.hidden runtime_libcall_enter_stub
	.type runtime_libcall_enter_stub, @function
runtime_libcall_enter_stub:
	pushq %rbp
	movq %rsp, %rbp
	andq $-16, %rsp
	subq $192, %rsp       /* 56(%rsp): the site */
	SAVE_ARGS
	movq %r11, 56(%rsp)
	movq %r11, %rdi
	leaq 8(%rbp), %rsi
	call runtime_libcall_enter_fast
	testq %rax, %rax
	jnz 1f
	SAVE_XMM 64, 0,1,2,3,4,5,6,7
	movq 56(%rsp), %rdi
	leaq 8(%rbp), %rsi
	movq %rsp, %rdx
	call runtime_libcall_on_enter
	LOAD_XMM 64, 0,1,2,3,4,5,6,7
1:	movq %rax, %r11
	LOAD_ARGS
	movq %rbp, %rsp
	popq %rbp
	jmp *%r11
	.size runtime_libcall_enter_stub, . - runtime_libcall_enter_stub

	.globl runtime_libcall_return_stub
	.hidden runtime_libcall_return_stub
	.type runtime_libcall_return_stub, @function
	/* One byte before the label, so that an unwinder that looks up the
	 * return address minus one finds this function, not the one before. */
	nop
runtime_libcall_return_stub:
	subq $8, %rsp         /* the slot the real return address goes in */
	pushq %rbp
	movq %rsp, %rbp
	andq $-16, %rsp
	subq $48, %rsp
	movq %rax, 0(%rsp)
	movq %rdx, 8(%rsp)
	leaq 16(%rbp), %rdi
	call runtime_libcall_return_fast
	testq %rax, %rax
	jnz 1f
	SAVE_XMM 16, 0,1
	movq %rsp, %rdi
	leaq 16(%rbp), %rsi
	call runtime_patch_libcall_return
	LOAD_XMM 16, 0,1
1:	movq %rax, 8(%rbp)
	movq 0(%rsp), %rax
	movq 8(%rsp), %rdx
	RETURN_BY_JUMP
	.size runtime_libcall_return_stub, . - runtime_libcall_return_stub

	.section .note.GNU-stack, "", @progbits
