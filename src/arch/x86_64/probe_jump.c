/*
 * probe_jump.c (x86-64) - setjmp and longjmp of the runtime's own for its
 * guarded reads (runtime/readable.c; the C library's may be patched): the
 * callee-saved registers, the stack pointer and where to go on, in
 * ARCH_PROBE_WORDS words.
 */
__asm__(".text\n"
	".globl probe_save\n"
	".hidden probe_save\n"
	".type probe_save, @function\n"
	"probe_save:\n"
	"	movq %rbx, 0(%rdi)\n"
	"	movq %rbp, 8(%rdi)\n"
	"	movq %r12, 16(%rdi)\n"
	"	movq %r13, 24(%rdi)\n"
	"	movq %r14, 32(%rdi)\n"
	"	movq %r15, 40(%rdi)\n"
	"	leaq 8(%rsp), %rdx\n"
	"	movq %rdx, 48(%rdi)\n"
	"	movq (%rsp), %rdx\n"
	"	movq %rdx, 56(%rdi)\n"
	"	xorl %eax, %eax\n"
	"	ret\n"
	".globl probe_jump\n"
	".hidden probe_jump\n"
	".type probe_jump, @function\n"
	"probe_jump:\n"
	"	movq 0(%rdi), %rbx\n"
	"	movq 8(%rdi), %rbp\n"
	"	movq 16(%rdi), %r12\n"
	"	movq 24(%rdi), %r13\n"
	"	movq 32(%rdi), %r14\n"
	"	movq 40(%rdi), %r15\n"
	"	movq 48(%rdi), %rsp\n"
	"	movl $1, %eax\n"
	"	jmp *56(%rdi)\n");
