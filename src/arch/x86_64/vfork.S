/*
 * vfork.S (x86-64) - the runtime's vfork (src/runtime/session/vfork.c): the thread
 * is made the runtime's for the child, then the parent gets back the
 * generation it had, kept in %esi across the system call.  The return
 * address is kept in %rdi, as the C library's vfork does: the child may
 * overwrite its stack slot before the parent runs again.
 */
	.text
	.globl vfork
	.type vfork, @function
vfork:
	subq $8, %rsp
	call runtime_vfork_begin
	addq $8, %rsp
	movl %eax, %esi
	popq %rdi
	movl $58, %eax /* SYS_vfork */
	syscall
	pushq %rdi
	testq %rax, %rax
	jz 1f /* the child */
	subq $8, %rsp
	movq %rax, %rdi
	call runtime_vfork_end /* the pid, or -1 and errno */
	addq $8, %rsp
1:	ret
	.size vfork, .-vfork
	.section .note.GNU-stack, "", @progbits
