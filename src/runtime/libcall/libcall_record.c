/*
 * libcall_record.c - recording a library call: its enter when the call
 * comes through its slot's trampoline (libcall_stubs.S), its exit when it
 * returns through the in-process engine's return stub (patch_shadow.c
 * keeps the real return address, and keeps longjmp, exceptions and signal
 * handlers consistent for library calls as for the program's own).
 *
 * A call is not recorded while the runtime does its own work (the thread's
 * gen says so), nor after the thread's stream ended (its last destructors:
 * the program's own calls there are counted as lost, not these), nor while this thread is inside
 * the recording of another library call or the in-process engine's stub: those are the runtime's
 * own calls.  After a lazily bound slot's first call returns, the dynamic linker has written the
 * function's address into the slot, over the trampoline: that address becomes the target, and the
 * trampoline goes back.  A dlopen's return hooks the traced modules it brought; a dlsym's returns a
 * trampoline for the function found.
 */
#include "../runtime.h"
#include "libcall.h"
#include "../core/hook_fast.h"
#include "../inprocess/patch_shadow.h"
#include "../../arch/arch.h"
#include "../../symbols/prototypes.h"

#include <dlfcn.h>
#include <errno.h>

__thread uint32_t runtime_libcall_busy __attribute__((tls_model("initial-exec")));

static int runtime_at_work(const struct thread_state *t)
{
	uint32_t gen = t->gen;
	return t->in_patch_stub || gen == RUNTIME_GEN_BUSY || gen == RUNTIME_GEN_INTERNAL ||
	       t->phase == THREAD_DEAD;
}

/* Lazily bound slots whose first call is under way: the dynamic linker
 * writes the function's address over the trampoline before the function
 * runs, and a call that never returns (longjmp, exit) cannot put it back
 * at its return: the next library call of any thread does, and a longjmp
 * or a C++ exception (patch_shadow.c). */
#define LAZY_PENDING_MAX 64
static struct libcall_site *lazy_pending[LAZY_PENDING_MAX];
uint32_t runtime_libcall_lazy_waiting;
static int lazy_lock;

static void take_resolved(struct libcall_site *site);

static void lazy_lock_take(void)
{
	while (__atomic_exchange_n(&lazy_lock, 1, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
}

static void lazy_note(struct libcall_site *site)
{
	lazy_lock_take();
	uint32_t i = 0;
	while (i < runtime_libcall_lazy_waiting && lazy_pending[i] != site)
		i++;
	if (i == runtime_libcall_lazy_waiting && runtime_libcall_lazy_waiting < LAZY_PENDING_MAX)
		lazy_pending[runtime_libcall_lazy_waiting++] = site;
	__atomic_store_n(&lazy_lock, 0, __ATOMIC_RELEASE);
}

static void lazy_sweep(void)
{
	lazy_lock_take();
	for (uint32_t i = 0; i < runtime_libcall_lazy_waiting;) {
		struct libcall_site *site = lazy_pending[i];
		if (site->flags & LIBCALL_LAZY)
			take_resolved(site);
		if (site->flags & LIBCALL_LAZY)
			i++;
		else
			lazy_pending[i] = lazy_pending[--runtime_libcall_lazy_waiting];
	}
	__atomic_store_n(&lazy_lock, 0, __ATOMIC_RELEASE);
}

int runtime_libcall_values_on;

/* The arguments wait in the thread's pending buffer for the enter, which
 * the checked path writes with them (hooks.c). */
static int enter_with_values(struct thread_state *t, struct libcall_site *site,
			     uint64_t *return_slot, uint64_t *registers)
{
	uint32_t gen = t->gen;
	if (RUNTIME_LOAD(runtime_state) != 0 && gen != RUNTIME_GEN_ARGS &&
	    runtime_args_pending_buffer(t)) {
		struct args_pending *a = t->args;
		a->len = runtime_libcall_encode_args(site->proto, registers, a->bytes);
		a->slot = (uint64_t)return_slot;
		a->function = site->fid;
	}
	return runtime_hook_event_checked(t, site->fid, HOOK_ENTER, (uint64_t)return_slot);
}

/* Whether the event the stream wrote last is the exit of the call through
 * `site` whose return address was at `slot` (as args_capture.c asks). */
static int just_closed(const struct trace_stream *st, uint64_t fid, uint64_t slot)
{
	uint32_t d = st->depth;
	return d < st->open_cap && st->open_calls[d].address == fid &&
	       st->open_calls[d].sp == slot && st->pos;
}

static void write_return(struct thread_state *t, struct libcall_site *site, uint64_t *registers,
			 uint64_t *return_slot, int saved_errno)
{
	uint32_t seen = t->gen;
	if (seen == RUNTIME_GEN_BUSY || seen == RUNTIME_GEN_INTERNAL || seen == RUNTIME_GEN_ARGS ||
	    RUNTIME_LOAD(runtime_state) != seen)
		return;
	t->gen = RUNTIME_GEN_BUSY;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (just_closed(&t->stream, site->fid, (uint64_t)return_slot)) {
		uint8_t value[TRACE_STRING_MAX + 32];
		uint32_t len =
		    runtime_libcall_encode_return(site->proto, registers, saved_errno, value);
		trace_stream_values(&t->stream, EV_RETVAL, value, len);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->gen = seen;
}

void runtime_libcall_sweep(void)
{
	if (likely(!RUNTIME_LOAD(runtime_libcall_lazy_waiting)) || runtime_libcall_busy)
		return;
	runtime_libcall_busy = 1; /* the lock is never taken by a handler that interrupts it */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	lazy_sweep();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	runtime_libcall_busy = 0;
}

/* A library call's enter by the checked path (libcall_stubs.S, when
 * runtime_libcall_enter_fast declined). */
__attribute__((visibility("hidden"))) uint64_t
runtime_libcall_on_enter(struct libcall_site *site, uint64_t *return_slot, uint64_t *registers)
{
	struct thread_state *t = &runtime_thread;
	if (runtime_libcall_busy) /* a call the recording of another one makes */
		return site->target;
	runtime_libcall_busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(RUNTIME_LOAD(runtime_libcall_lazy_waiting)))
		lazy_sweep();
	if (unlikely(site->flags & LIBCALL_LAZY))
		lazy_note(site);
	uint64_t target = site->target;
	/* dlsym(RTLD_NEXT) finds the symbol after its caller's module: the
	 * return address must stay the caller's. */
	int pass = runtime_at_work(t) ||
		   ((site->flags & LIBCALL_DLSYM) && registers[0] == (uint64_t)RTLD_NEXT);
	if (!pass) {
		int counted;
		if (site->flags & LIBCALL_VALUES)
			counted = enter_with_values(t, site, return_slot, registers);
		else
			counted = runtime_hook_enter(t, site->fid, (uint64_t)return_slot);
		if (counted)
			runtime_patch_hijack_libcall(return_slot, site,
						     runtime_libcall_landing_of(site));
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	runtime_libcall_busy = 0;
	return target;
}

/* A lazily bound slot: the dynamic linker resolved it during the call. */
static void take_resolved(struct libcall_site *site)
{
	uint64_t now = __atomic_load_n(site->slot, __ATOMIC_RELAXED);
	if (now == site->trampoline)
		return;
	site->target = now;
	__atomic_store_n(&site->flags, site->flags & ~(uint32_t)LIBCALL_LAZY, __ATOMIC_RELAXED);
	__atomic_store_n(site->slot, site->trampoline, __ATOMIC_RELEASE);
}

void runtime_libcall_forget_pending(const struct libcall_site *sites, uint32_t n)
{
	lazy_lock_take();
	for (uint32_t i = 0; i < runtime_libcall_lazy_waiting;) {
		if (!sites || (lazy_pending[i] >= sites && lazy_pending[i] < sites + n))
			lazy_pending[i] = lazy_pending[--runtime_libcall_lazy_waiting];
		else
			i++;
	}
	__atomic_store_n(&lazy_lock, 0, __ATOMIC_RELEASE);
}

/* After the exit is written (patch_shadow.c): registers as the return
 * stub saved them, the first result register (%rax, x0) first. */
void runtime_libcall_returned(struct libcall_site *site, uint64_t *registers, uint64_t *return_slot)
{
	uint32_t flags = site->flags;
	struct thread_state *t = &runtime_thread;
	int saved = errno;
	runtime_libcall_busy = 1;
	if ((flags & LIBCALL_VALUES) && site->proto->ret != PT_VOID)
		write_return(t, site, registers, return_slot, saved);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (flags & LIBCALL_LAZY)
		take_resolved(site);
	if ((flags & LIBCALL_DLOPEN) && registers[0]) {
		uint32_t gen = runtime_internal_begin(t);
		runtime_libcall_scan_modules();
		runtime_internal_end(t, gen);
	}
	if ((flags & LIBCALL_DLSYM) && registers[0]) {
		uint32_t gen = runtime_internal_begin(t);
		registers[0] = runtime_libcall_wrap_pointer(registers[0]);
		runtime_internal_end(t, gen);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	runtime_libcall_busy = 0;
	errno = saved;
}
