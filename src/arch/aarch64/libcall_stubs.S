/*
 * libcall_stubs.S (aarch64) - where a hooked GOT slot's trampoline lands
 * (src/runtime/libcall/libcall.h; x86-64's is src/runtime/libcall/libcall_stubs.S).
 *
 * runtime_libcall_enter_stub: x16 holds the struct libcall_site, x30 the
 * call's return address.  Pushes the frame record (x29, x30) where the
 * caller's stack ends, so that x30 lies in a slot the shadow stack can
 * swap (as patch_stubs.S does); saves the argument registers (x0-x7, then
 * q0-q7, in the layout libcall_values.c reads; x8, a result's address),
 * calls runtime_libcall_on_enter(site, slot, registers), puts them back
 * (x30 from the slot) and branches to the address it returned with x16
 * holding the site's GOT slot, as the PLT leaves it (a lazily bound slot's
 * call goes on to the PLT's resolver, which reads it).  The other
 * registers a call may clobber are left to the function called: the
 * caller expects them clobbered.
 *
 * runtime_libcall_return_stub: a library call's return address while it
 * runs.  Keeps what a function returns (x0, x1, q0-q3: an HFA's four
 * members) and asks runtime_patch_libcall_return(registers, stack
 * pointer) for the real return address.
 */
#define ENTER_FRAME 208 /* x0-x7, q0-q7, x8 and a pad */
#define RETURN_FRAME 80 /* x0, x1, q0-q3 */
#define SITE_SLOT 16	/* offsetof(struct libcall_site, slot) */

	/* The frame record pushed where the caller's stack ends, and room
	 * for \size bytes of registers below it; and back. */
	.macro FRAME_IN size
	stp x29, x30, [sp, #-16]!
	mov x29, sp
	sub sp, sp, #\size
	.endm

	/* The enter's registers to (stp) or from (ldp) their places; x16
	 * (the site) beside x8. */
	.macro ENTER_REGISTERS op
	\op x0, x1, [sp, #0]
	\op x2, x3, [sp, #16]
	\op x4, x5, [sp, #32]
	\op x6, x7, [sp, #48]
	\op q0, q1, [sp, #64]
	\op q2, q3, [sp, #96]
	\op q4, q5, [sp, #128]
	\op q6, q7, [sp, #160]
	\op x8, x16, [sp, #192]
	.endm

	/* The return's. */
	.macro RETURN_REGISTERS op
	\op x0, x1, [sp, #0]
	\op q0, q1, [sp, #16]
	\op q2, q3, [sp, #48]
	.endm

	.text
	.globl runtime_libcall_enter_stub
	.hidden runtime_libcall_enter_stub
	.type runtime_libcall_enter_stub, %function
runtime_libcall_enter_stub:
	FRAME_IN ENTER_FRAME
	ENTER_REGISTERS stp
	mov x0, x16
	add x1, x29, #8
	mov x2, sp
	bl runtime_libcall_on_enter
	mov x17, x0
	ENTER_REGISTERS ldp
	ldr x16, [x16, #SITE_SLOT]
	mov sp, x29
	ldp x29, x30, [sp], #16
	br x17
	.size runtime_libcall_enter_stub, . - runtime_libcall_enter_stub

	.globl runtime_libcall_return_stub
	.hidden runtime_libcall_return_stub
	.type runtime_libcall_return_stub, %function
	/* One instruction before the label, so that an unwinder that looks up
	 * the return address minus one finds this function. */
	nop
runtime_libcall_return_stub:
	FRAME_IN RETURN_FRAME
	RETURN_REGISTERS stp
	mov x0, sp
	add x1, x29, #16
	bl runtime_patch_libcall_return
	mov x30, x0
	RETURN_REGISTERS ldp
	mov sp, x29
	ldr x29, [sp], #16
	ret
	.size runtime_libcall_return_stub, . - runtime_libcall_return_stub

	.section .note.GNU-stack, "", %progbits
