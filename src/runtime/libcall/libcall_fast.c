/*
 * libcall_fast.c - the common case of a library call's enter and return
 * (libcall_stubs.S asks here first): a slot already bound, no values to
 * capture, nothing to do after the return, the thread's stream writing and
 * the function's id cached, the return address pushed on the shadow stack
 * or popped from its top.  Anything else returns 0, with nothing changed,
 * and the stub takes the checked path (libcall_record.c's
 * runtime_libcall_on_enter, patch_shadow.c's runtime_patch_libcall_return).
 *
 * Built with general registers only (Makefile: RT_GPR_ONLY): the stub
 * saves the vector registers only for the checked path.  It calls
 * nothing, so the calls it would make cannot be the runtime's own.
 */
#include "../runtime.h"
#include "../core/hook_fast.h"
#include "../inprocess/patch_shadow.h"
#include "libcall.h"

/* Sites whose enter takes the checked path: a lazily bound slot, dlsym's
 * (its RTLD_NEXT), values captured. */
#define LIBCALL_ENTER_CHECKED (LIBCALL_LAZY | LIBCALL_DLSYM | LIBCALL_VALUES)

/* Whether this call is the runtime's own, or has more to do than the
 * hooks' fast path and a push. */
static int enter_needs_check(const struct thread_state *t, const struct libcall_site *site)
{
	return (site->flags & LIBCALL_ENTER_CHECKED) || runtime_libcall_busy || t->in_patch_stub ||
	       t->phase == THREAD_DEAD || RUNTIME_LOAD(runtime_libcall_lazy_waiting) ||
	       !shadow_has_room();
}

__attribute__((visibility("hidden"))) uint64_t runtime_libcall_enter_fast(struct libcall_site *site,
									  uint64_t *return_slot)
{
	struct thread_state *t = &runtime_thread;
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (unlikely(state == 0 || enter_needs_check(t, site)) ||
	    !hook_fast_enter(t, state, site->fid, (uint64_t)return_slot))
		return 0;
	shadow_put(return_slot, site->fid, site, SHADOW_LIBCALL, 0);
	*return_slot = runtime_libcall_landing_of(site);
	return site->target;
}

__attribute__((visibility("hidden"))) uint64_t runtime_libcall_return_fast(uint64_t sp)
{
	const struct shadow_frame *f = shadow_innermost_at(sp);
	if (unlikely(!f || f->by_hooks != SHADOW_LIBCALL ||
		     (f->site->flags & LIBCALL_AFTER_RETURN)))
		return 0;
	return shadow_return_fast(&runtime_thread, f);
}
