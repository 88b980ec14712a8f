/*
 * vfork.S (aarch64) - the runtime's vfork (src/runtime/session/vfork.c): the thread
 * is made the runtime's for the child, then the parent gets back the
 * generation it had, kept in x9 across the system call (clone with
 * CLONE_VM | CLONE_VFORK, as the C library makes it).  The return address
 * stays in x30 meanwhile: the child may overwrite the stack below the
 * caller's frame before the parent runs again; after the call the stack is
 * the parent's.
 */
	.text
	.globl vfork
	.type vfork, %function
vfork:
	stp x29, x30, [sp, #-16]!
	bl runtime_vfork_begin
	ldp x29, x30, [sp], #16
	mov w9, w0
	mov x0, #0x4111 /* CLONE_VM | CLONE_VFORK | SIGCHLD */
	mov x1, #0
	mov x2, #0
	mov x3, #0
	mov x4, #0
	mov x8, #220 /* SYS_clone */
	svc #0
	cbz x0, 1f /* the child */
	stp x29, x30, [sp, #-16]!
	mov w1, w9
	bl runtime_vfork_end /* the pid, or -1 and errno */
	ldp x29, x30, [sp], #16
1:	ret
	.size vfork, .-vfork
	.section .note.GNU-stack, "", %progbits
