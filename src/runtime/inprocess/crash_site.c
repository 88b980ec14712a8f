/*
 * crash_site.c - what a crash record names as the place of a fault.
 *
 * Under the in-process engine a fault can hit in calltrace's own code on
 * the way into a call of the program: a full stack overflows in the
 * trampoline's push, in the enter stub saving the registers, or in the
 * runtime writing the call.  The place is then the function being entered,
 * not the runtime's (src/patch/trampoline_site.c), found here in the
 * process's own memory.  A fault in the trampoline's copy of the
 * function's first instructions is the function's own (a load through a
 * null pointer as its first instruction): it is named without the mark
 * of the tracer's code.  Nothing here calls the C library: it runs in the
 * crash handler.
 */
#include "../runtime.h"
#include "patch_record.h"
#include "../../patch/trampoline_site.h"

static uint64_t trampoline_at(void *ctx, uint64_t address)
{
	(void)ctx;
	return (uint64_t)patch_code_block_at(address, PATCH_TRAMPOLINE_SIZE);
}

static uint64_t function_of(void *ctx, uint64_t start)
{
	(void)ctx;
	return ((const struct patch_record *)start)->address;
}

static uint64_t resume_of(void *ctx, uint64_t start)
{
	(void)ctx;
	return ((const struct patch_record *)start)->resume;
}

uint64_t runtime_crash_site_function(uint64_t pc, uint64_t r11, int *own_code)
{
	const struct trampoline_view view = {
	    .trampoline_at = trampoline_at,
	    .function_of = function_of,
	    .resume_of = resume_of,
	    .enter_stub = (uint64_t)runtime_patch_enter_stub,
	    .enter_stub_end = (uint64_t)runtime_patch_enter_stub_end,
	    .entering = runtime_patch_entering,
	};
	return trampoline_site_function(&view, pc, r11, own_code);
}
