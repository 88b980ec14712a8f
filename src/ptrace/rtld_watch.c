/*
 * rtld_watch.c - noticing dlopen and dlclose: a breakpoint on the dynamic
 * linker's _dl_debug_state, the function it calls for debuggers whenever
 * its list of loaded objects changes (r_debug.r_brk).  When r_state says
 * the list is consistent again, the engine rescans the process's modules:
 * rtld_hit() says so, and special_stops.c, above it, does it.
 *
 * Above instrument.c (which arms the breakpoint); it never calls up into
 * the modules or the processes.
 */
#include "elf_image.h"
#include "engine.h"

#define R_STATE_OFFSET 24 /* struct r_debug: version, map, brk, state */
#define RT_CONSISTENT 0

int rtld_watch(struct engine *e, struct thread *t, size_t index)
{
	struct process *p = t->proc;
	struct module *m = &p->modules[index];
	struct elf_image im;
	uint64_t state_fn, r_debug;
	if (elf_image_open(&im, m->path) < 0)
		return 0;
	int found = elf_image_symbol(&im, "_dl_debug_state", &state_fn) == 0 &&
		    elf_image_symbol(&im, "_r_debug", &r_debug) == 0;
	elf_image_close(&im);
	if (!found) {
		engine_note(e, "%s: no _dl_debug_state: dlopen not followed", m->path);
		return 0;
	}
	p->r_debug = r_debug + m->bias;
	return special_breakpoint(e, t, index, state_fn + m->bias, BP_RTLD);
}

int rtld_hit(struct thread *t)
{
	int32_t state;
	return mem_read(t->proc, t->proc->r_debug + R_STATE_OFFSET, &state, sizeof(state)) == 0 &&
	       state == RT_CONSISTENT;
}
