/*
 * patch_stubs.S (aarch64) - where a patched function's entry branch and
 * its hijacked return land (see src/runtime/inprocess/patch_stubs.S, x86-64's).
 *
 * Both keep every register a call may clobber (x0-x15, q0-q31, the flags;
 * x16 and x17 are the veneers' and free at an entry and a return), in one
 * layout: x0-x15 from sp, q0-q31 from sp+128.
 * Each first pushes the frame record (x29, x30) where the caller's stack
 * ends: x30, the call's return address, lies at the caller's sp - 8, its
 * "slot" for the shadow stack (patch_shadow.c), as the return address on
 * the stack does on x86-64; the usual prologue of the function (stp x29,
 * x30, [sp, #-16]!) saves the link register at that same place.
 *
 * runtime_patch_enter_stub: reached from a function's trampoline with its
 * struct patch_record in x16.  Calls runtime_patch_on_enter(record, slot,
 * registers), which may put the return stub in the slot; puts every
 * register back (x30 from the slot) and branches where it said (x16): the
 * displaced instruction.  For that call the thread's
 * runtime_patch_entering holds the record (crash_site.c).
 *
 * runtime_patch_return_stub: a patched call's return address while it
 * runs; runtime_patch_on_return(registers, sp) gives the real one.
 */
#define FRAME 656 /* x0-x15, q0-q31, the outer runtime_patch_entering, nzcv */
#define ENTERING 640
#define FLAGS 648

	/* x0-x15 and q0-q31 to (stp) or from (ldp) their places from sp. */
	.macro REGISTERS op
	\op x0, x1, [sp, #0]
	\op x2, x3, [sp, #16]
	\op x4, x5, [sp, #32]
	\op x6, x7, [sp, #48]
	\op x8, x9, [sp, #64]
	\op x10, x11, [sp, #80]
	\op x12, x13, [sp, #96]
	\op x14, x15, [sp, #112]
	\op q0, q1, [sp, #128]
	\op q2, q3, [sp, #160]
	\op q4, q5, [sp, #192]
	\op q6, q7, [sp, #224]
	\op q8, q9, [sp, #256]
	\op q10, q11, [sp, #288]
	\op q12, q13, [sp, #320]
	\op q14, q15, [sp, #352]
	\op q16, q17, [sp, #384]
	\op q18, q19, [sp, #416]
	\op q20, q21, [sp, #448]
	\op q22, q23, [sp, #480]
	\op q24, q25, [sp, #512]
	\op q26, q27, [sp, #544]
	\op q28, q29, [sp, #576]
	\op q30, q31, [sp, #608]
	.endm

	.macro SAVE_ALL
	REGISTERS stp
	mrs x9, nzcv
	str x9, [sp, #FLAGS]
	.endm

	.macro LOAD_ALL
	ldr x9, [sp, #FLAGS]
	msr nzcv, x9
	REGISTERS ldp
	.endm

	/* x9: the address of the thread's runtime_patch_entering. */
	.macro ENTERING_ADDRESS
	mrs x9, tpidr_el0
	adrp x10, :gottprel:runtime_patch_entering
	ldr x10, [x10, #:gottprel_lo12:runtime_patch_entering]
	add x9, x9, x10
	.endm

	.text
	.globl runtime_patch_enter_stub
	.hidden runtime_patch_enter_stub
	.type runtime_patch_enter_stub, %function
runtime_patch_enter_stub:
	stp x29, x30, [sp, #-16]!
	mov x29, sp
	sub sp, sp, #FRAME
	SAVE_ALL
	ENTERING_ADDRESS
	ldr x10, [x9]
	str x10, [sp, #ENTERING]
	str x16, [x9]
	mov x0, x16
	add x1, x29, #8
	mov x2, sp
	bl runtime_patch_on_enter
	mov x16, x0
	ENTERING_ADDRESS
	ldr x10, [sp, #ENTERING]
	str x10, [x9]
	LOAD_ALL
	mov sp, x29
	ldp x29, x30, [sp], #16
	br x16
	.globl runtime_patch_enter_stub_end
	.hidden runtime_patch_enter_stub_end
runtime_patch_enter_stub_end:
	.size runtime_patch_enter_stub, . - runtime_patch_enter_stub

	.globl runtime_patch_return_stub
	.hidden runtime_patch_return_stub
	.type runtime_patch_return_stub, %function
	/* One instruction before the label, so that an unwinder that looks up
	 * the return address minus one finds this function. */
	nop
runtime_patch_return_stub:
	stp x29, x30, [sp, #-16]!
	mov x29, sp
	sub sp, sp, #FRAME
	SAVE_ALL
	mov x0, sp
	add x1, x29, #16
	bl runtime_patch_on_return
	mov x30, x0
	LOAD_ALL
	mov sp, x29
	ldr x29, [sp], #16
	ret
	.size runtime_patch_return_stub, . - runtime_patch_return_stub

	.section .note.GNU-stack, "", %progbits
