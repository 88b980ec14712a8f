/*
 * patch_fast.c - the common case of a patched function's enter and return
 * (patch_stubs.S asks here first): the thread's stream writing, the
 * function's id cached, its return address pushed on the shadow stack or
 * popped from its top, nothing else to do.  Anything else returns 0, with
 * nothing changed, and the stub takes the checked path (patch_engine.c's
 * runtime_patch_on_enter, patch_shadow.c's runtime_patch_on_return).
 *
 * Built with general registers only (Makefile: RT_GPR_ONLY): the stub
 * saves the vector registers only for the checked path.  It calls
 * nothing, so it needs no guard against the runtime's own calls.
 */
#include "../runtime.h"
#include "patch_record.h"
#include "patch_shadow.h"
#include "../core/hook_fast.h"

extern void runtime_patch_return_stub(void);

/* Whether an enter has more to do than the hooks' fast path and a push:
 * the dynamic linker's notice, the unwinder's entries, an exception on its
 * way, arguments, a module whose hooks record its calls, the runtime's own
 * call, no room left on the shadow stack. */
static int enter_needs_check(const struct thread_state *t, const struct patch_record *r)
{
	return r->plan || r->by_hooks || t->in_patch_stub || !shadow_has_room() ||
	       r->address == runtime_patch_loader_notice ||
	       RUNTIME_LOAD(runtime_patch_unwinder_watched) || runtime_patch_unwinding;
}

__attribute__((visibility("hidden"))) uint64_t
runtime_patch_enter_fast(const struct patch_record *r, uint64_t *slot)
{
	struct thread_state *t = &runtime_thread;
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (unlikely(state == 0 || enter_needs_check(t, r)) ||
	    !hook_fast_enter(t, state, r->address, (uint64_t)slot))
		return 0;
	shadow_put(slot, r->address, NULL, 0, 0);
	*slot = (uint64_t)runtime_patch_return_stub;
	return r->resume;
}

__attribute__((visibility("hidden"))) uint64_t runtime_patch_return_fast(uint64_t sp)
{
	const struct shadow_frame *f = shadow_innermost_at(sp);
	if (unlikely(!f || f->by_hooks || f->plan))
		return 0;
	return shadow_return_fast(&runtime_thread, f);
}
