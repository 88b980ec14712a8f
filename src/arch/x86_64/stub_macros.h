/*
 * stub_macros.h - assembler macros the x86-64 stubs share (the in-process
 * engine's patch_stubs.S, library calls' libcall_stubs.S): the argument
 * registers and the vector registers kept in the stub's frame, and the
 * return stubs' way back.
 */
/* Assembler, which clang-format would take for C: */
/* clang-format off */
#ifndef CALLTRACE_X86_64_STUB_MACROS_H
#define CALLTRACE_X86_64_STUB_MACROS_H

	/* The argument registers, and %rax (a variadic call's count of vector
	 * registers), to or from 0..48(%rsp), in the order the runtime reads
	 * them (stub_values.c). */
	.macro SAVE_ARGS
	movq %rdi, 0(%rsp)
	movq %rsi, 8(%rsp)
	movq %rdx, 16(%rsp)
	movq %rcx, 24(%rsp)
	movq %r8, 32(%rsp)
	movq %r9, 40(%rsp)
	movq %rax, 48(%rsp)
	.endm
	.macro LOAD_ARGS
	movq 0(%rsp), %rdi
	movq 8(%rsp), %rsi
	movq 16(%rsp), %rdx
	movq 24(%rsp), %rcx
	movq 32(%rsp), %r8
	movq 40(%rsp), %r9
	movq 48(%rsp), %rax
	.endm

	/* The xmm registers listed (by number) to or from 16 bytes each from
	 * \base(%rsp): %xmmN at \base + 16 * N. */
	.macro SAVE_XMM base, regs:vararg
	.irp i,\regs
	movdqu %xmm\i, \base+16*\i(%rsp)
	.endr
	.endm
	.macro LOAD_XMM base, regs:vararg
	.irp i,\regs
	movdqu \base+16*\i(%rsp), %xmm\i
	.endr
	.endm

	/* A return stub's end: the frame left, and a jump to the real return
	 * address it put at 8(%rbp).  A jump, not a ret: the call's ret that
	 * came here took the return stack's entry for this address, and a ret
	 * would be mispredicted (and leave the return stack out of step). */
	.macro RETURN_BY_JUMP
	movq %rbp, %rsp
	popq %rbp
	leaq 8(%rsp), %rsp    /* the address stays in the red zone */
	jmp *-8(%rsp)
	.endm

#endif
