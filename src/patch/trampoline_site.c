/*
 * trampoline_site.c - the program's function a fault in the in-process
 * engine's code is charged to (trampoline_site.h): a trampoline starts
 * with the record of its function, the enter stub has that record in %r11,
 * and the thread is marked with it for the time of the runtime's work
 * (patch_stubs.S).
 */
#include "trampoline_site.h"

/* The function of the trampoline that starts exactly at `address`. */
static uint64_t function_at(const struct trampoline_view *v, uint64_t address)
{
	if (!address || v->trampoline_at(v->ctx, address) != address)
		return 0;
	return v->function_of(v->ctx, address);
}

uint64_t trampoline_site_function(const struct trampoline_view *v, uint64_t pc, uint64_t r11,
				  int *own_code)
{
	*own_code = 0;
	uint64_t start = v->trampoline_at(v->ctx, pc);
	if (start) { /* its push, or the function's displaced instructions */
		uint64_t resume = v->resume_of(v->ctx, start);
		*own_code = resume && pc >= resume;
		return v->function_of(v->ctx, start);
	}
	uint64_t function = 0;
	if (pc >= v->enter_stub && pc < v->enter_stub_end)
		function = function_at(v, r11);
	return function ? function : function_at(v, v->entering);
}
