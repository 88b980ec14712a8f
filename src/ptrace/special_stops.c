/*
 * special_stops.c - a stop at a breakpoint that is not a traced function:
 * the dynamic linker's _dl_debug_state (modules were loaded or unloaded:
 * rescan them once its list is consistent), longjmp and its kin (the
 * frames below the target end), the unwinder and __cxa_begin_catch (an
 * exception starts, or is caught).  Then the displaced instructions are
 * run and the thread goes on.
 *
 * Above the watches (rtld_watch.c, unwind_watch.c), which say what a hit
 * means, and module_setup.c, which a rescan needs; called by the event loop.
 */
#include "engine.h"

void special_hit(struct engine *e, struct thread *t, const struct breakpoint *bp,
		 struct user_regs_struct *r)
{
	struct breakpoint copy = *bp; /* a rescan may move the table */
	uint64_t ret;
	r->rip = copy.function;
	if (mem_read(t->proc, r->rsp, &ret, sizeof(ret)) < 0)
		ret = 0;
	if (copy.kind == BP_RTLD) {
		if (rtld_hit(t))
			module_setup_rescan(e, t);
	} else if (copy.kind == BP_LONGJMP) {
		longjmp_hit(t, r);
	} else {
		unwind_hit(e, t, &copy, r->rsp);
	}
	bp_step_untraced(t, &copy, r, ret);
}
