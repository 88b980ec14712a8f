/*
 * crash_site.c - what a crash record names as the place of a fault.
 *
 * Under the in-process engine a fault can hit in calltrace's own code on
 * the way into a call of the program: a full stack overflows in the
 * trampoline's push, in the enter stub saving the registers, or in the
 * runtime writing the call.  The place is then the function being entered,
 * not the runtime's: the trampoline's record (the trampoline holds its
 * function's displaced instructions too), the record the enter stub has in
 * %r11, or the one it marked the thread with for the time of the runtime's
 * work (patch_stubs.S).  A fault in the trampoline's copy of the function's
 * first instructions is the function's own (a load through a null pointer
 * as its first instruction, its own push of a full stack): the function is
 * named, and that said.  Nothing here calls the C library: it runs in the
 * crash handler.
 */
#include "runtime.h"
#include "patch_record.h"

/* The record a trampoline starts with, when `address` is one's start. */
static const struct patch_record *record_at(uint64_t address)
{
	const uint8_t *block = patch_code_block_at(address, PATCH_TRAMPOLINE_SIZE);
	if (!block || (uint64_t)block != address)
		return NULL;
	const struct patch_record *r = (const struct patch_record *)block;
	return r->address ? r : NULL;
}

uint64_t runtime_crash_site_function(uint64_t pc, uint64_t r11, int *own_code)
{
	*own_code = 0;
	const uint8_t *block = patch_code_block_at(pc, PATCH_TRAMPOLINE_SIZE);
	if (block) { /* its push, or the function's displaced instructions */
		const struct patch_record *r = (const struct patch_record *)block;
		*own_code = r->resume && pc >= r->resume;
		return r->address;
	}
	const struct patch_record *r = NULL;
	if (pc >= (uint64_t)runtime_patch_enter_stub && pc < (uint64_t)runtime_patch_enter_stub_end)
		r = record_at(r11);
	if (!r)
		r = record_at(runtime_patch_entering);
	return r ? r->address : 0;
}
