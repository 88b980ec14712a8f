/*
 * patch_shadow.c - the in-process engine's shadow stack: the real return
 * addresses of the patched calls running in a thread, whose returns come
 * through runtime_patch_return_stub (patch_stubs.S) to record their exits;
 * and what keeps it right when a call is left without returning: a longjmp
 * (runtime_patch_unwind), a C++ exception (the unwinder gets the real
 * return addresses back before it reads the stack, and the frames it left
 * end when the exception is caught).
 */
#include "../runtime.h"
#include "patch_record.h"
#include "patch_shadow.h"
#include "../core/hook_fast.h"
#include "../libcall/libcall.h"
#include "../../arch/arch.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <sys/mman.h>

#define SHADOW_FIRST 1024

__thread struct shadow_frame *runtime_shadow __attribute__((tls_model("initial-exec")));
__thread uint32_t runtime_shadow_depth __attribute__((tls_model("initial-exec")));
__thread uint32_t runtime_shadow_cap __attribute__((tls_model("initial-exec")));
/* An exception is on its way up this thread's stack: frames below a call
 * being made are frames it has left. */
__thread int runtime_patch_unwinding __attribute__((tls_model("initial-exec")));

extern void runtime_patch_return_stub(void);

int runtime_patch_unwinder_watched;

/* ---- the shadow stack --------------------------------------------------- */

/* Room for one more frame; 0, or -1 when the stack cannot grow. */
static int shadow_grow(void)
{
	uint32_t cap = runtime_shadow_cap ? 2 * runtime_shadow_cap : SHADOW_FIRST;
	size_t now = runtime_shadow_cap * sizeof(*runtime_shadow),
	       len = cap * sizeof(*runtime_shadow);
	trace_own_begin(); /* the tracer's system call, not the program's */
	void *m = runtime_shadow
		      ? mremap(runtime_shadow, now, len, MREMAP_MAYMOVE)
		      : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	trace_own_end();
	if (m == MAP_FAILED)
		return -1;
	runtime_shadow = m;
	runtime_shadow_cap = cap;
	return 0;
}

static int shadow_push(uint64_t *slot, uint64_t function, const void *plan, int by_hooks,
		       uint64_t result_at)
{
	if (unlikely(!shadow_has_room()) && shadow_grow() < 0)
		return -1;
	shadow_put(slot, function, plan, (uint64_t)by_hooks, result_at);
	return 0;
}

/* The frames whose return address lies below `limit` were left by an
 * exception: their calls end now, as the hooks' do when it passes them. */
void runtime_patch_end_frames_below(uint64_t limit)
{
	struct thread_state *t = &runtime_thread;
	while (runtime_shadow_depth > 0 &&
	       (uint64_t)runtime_shadow[runtime_shadow_depth - 1].slot < limit) {
		struct shadow_frame f = runtime_shadow[--runtime_shadow_depth];
		if (f.by_hooks != 1)
			runtime_hook_exit(t, f.function);
	}
}

void runtime_patch_hijack_return(uint64_t *slot, uint64_t function, const struct func_plan *plan,
				 int by_hooks, uint64_t result_at)
{
	if (shadow_push(slot, function, plan, by_hooks, result_at) == 0)
		*slot = (uint64_t)runtime_patch_return_stub;
}

void runtime_patch_hijack_libcall(uint64_t *slot, struct libcall_site *site, uint64_t landing)
{
	if (shadow_push(slot, site->fid, site, SHADOW_LIBCALL, 0) == 0)
		*slot = landing;
}

/* Frames on one stack lie within this distance of each other; a frame
 * farther away is on another stack (a coroutine's, after swapcontext; a
 * signal stack) and is left alone. */
#define SAME_STACK (64ull << 20)

static int below_on_same_stack(const struct shadow_frame *f, uint64_t sp)
{
	uint64_t slot = (uint64_t)f->slot;
	return slot < sp && sp - slot < SAME_STACK;
}

/* Removes runtime_shadow[i] and the frames above it that lie below `sp` on the same
 * stack (left without returning: a jump the runtime did not see); frames of
 * other stacks stay, in order. */
static void shadow_remove(uint32_t i, uint64_t sp)
{
	uint32_t kept = i;
	for (uint32_t j = i + 1; j < runtime_shadow_depth; j++)
		if (!below_on_same_stack(&runtime_shadow[j], sp))
			runtime_shadow[kept++] = runtime_shadow[j];
	runtime_shadow_depth = kept;
}

/* Takes the frame whose return address was the word below `sp` off the
 * stack, with the frames above it left without returning; `what` came
 * back with no frame kept: the program cannot go on. */
static struct shadow_frame shadow_take(uint64_t sp, const char *what)
{
	uint32_t i = runtime_shadow_depth;
	while (i > 0 && (uint64_t)(runtime_shadow[i - 1].slot + 1) != sp)
		i--;
	if (unlikely(i == 0)) {
		runtime_say("%s returned with no return address kept; aborting", what);
		abort();
	}
	struct shadow_frame f = runtime_shadow[i - 1];
	shadow_remove(i - 1, sp);
	return f;
}

/* A patched call's return by the checked path (patch_stubs.S, when
 * runtime_patch_return_fast declined). */
__attribute__((visibility("hidden"))) uint64_t runtime_patch_on_return(void *registers, uint64_t sp)
{
	struct thread_state *t = &runtime_thread;
	uint32_t outer = t->in_patch_stub;
	t->in_patch_stub = runtime_patch_libraries_patched;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	int saved = errno;
	struct shadow_frame f = shadow_take(sp, "a patched function");
	if (f.by_hooks != 1)
		runtime_hook_exit(t, f.function);
	if (f.by_hooks == SHADOW_LIBCALL)
		runtime_libcall_returned(f.site, registers, f.slot);
	else if (f.plan)
		runtime_args_write_return(t, f.plan, f.function, (uint64_t)f.slot, registers,
					  f.result_at);
	errno = saved;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->in_patch_stub = outer;
	return f.original;
}

/* A library call's return by the checked path (libcall_stubs.S, when
 * runtime_libcall_return_fast declined): the frame is the innermost one
 * but when frames above it were left without returning (a longjmp the
 * runtime did not see). */
__attribute__((visibility("hidden"))) uint64_t runtime_patch_libcall_return(uint64_t *registers,
									    uint64_t sp)
{
	struct thread_state *t = &runtime_thread;
	uint32_t outer = t->in_patch_stub;
	t->in_patch_stub = runtime_patch_libraries_patched;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	struct shadow_frame f = shadow_take(sp, "a library call");
	runtime_hook_exit(t, f.function);
	if (unlikely(f.site->flags & LIBCALL_AFTER_RETURN))
		runtime_libcall_returned(f.site, registers, f.slot);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->in_patch_stub = outer;
	return f.original;
}

/* A longjmp to the frame whose stack pointer is `sp`: the frames below it
 * on its stack never return. */
void runtime_patch_unwind(uint64_t sp)
{
	runtime_libcall_sweep();
	uint32_t kept = 0;
	for (uint32_t j = 0; j < runtime_shadow_depth; j++)
		if (!below_on_same_stack(&runtime_shadow[j], sp))
			runtime_shadow[kept++] = runtime_shadow[j];
	runtime_shadow_depth = kept;
}

/* What a frame's return address was swapped for. */
static uint64_t frame_landing(const struct shadow_frame *f)
{
	return f->by_hooks == SHADOW_LIBCALL ? runtime_libcall_landing_of(f->site)
					     : (uint64_t)runtime_patch_return_stub;
}

/* ---- exceptions ---------------------------------------------------------- */

/* Where a function that keeps its return address in a register
 * (ARCH_RETURN_ADDRESS_MOVES: aarch64's link register) saved the swapped
 * one: its prologue puts it where its frame has room, below the slot
 * (which the stub wrote, and may hold it too): the highest word below the
 * slot, above `inner` (the next frame in on the stack), that holds the
 * landing; the slot itself when there is none. */
static uint64_t *saved_landing(const struct shadow_frame *f, uint64_t inner)
{
	uint64_t landing = frame_landing(f), slot = (uint64_t)f->slot;
	if (!ARCH_RETURN_ADDRESS_MOVES || slot <= inner || slot - inner >= SAME_STACK)
		return f->slot;
	for (uint64_t *at = f->slot - 1; (uint64_t)at >= inner; at--)
		if (*at == landing)
			return at;
	return f->slot;
}

/* Puts `to` where frame f's return address is `from`: its slot, and where
 * the function saved it. */
static void swap_return_address(const struct shadow_frame *f, uint64_t from, uint64_t to)
{
	if (*f->slot == from)
		*f->slot = to;
	if (f->saved_at != f->slot && *f->saved_at == from)
		*f->saved_at = to;
}

/* The unwinder reads return addresses to find frames: it gets the real
 * ones back for the whole stack, innermost frame first. */
__attribute__((noinline)) static void shadow_restore_all(void)
{
	runtime_libcall_sweep();
	runtime_patch_unwinding = 1;
	uint64_t inner = (uint64_t)__builtin_frame_address(0);
	for (uint32_t i = runtime_shadow_depth; i-- > 0;) {
		struct shadow_frame *f = &runtime_shadow[i];
		f->saved_at = saved_landing(f, inner);
		swap_return_address(f, frame_landing(f), f->original);
		if ((uint64_t)f->slot > inner && (uint64_t)f->slot - inner < SAME_STACK)
			inner = (uint64_t)f->slot; /* on this stack: the next one out is above */
	}
}

/* After a catch at stack pointer `sp`: the frames below are gone (their
 * calls end now, as the hooks' do when an exception passes), the others
 * return through the stub again. */
static void shadow_resume_after_catch(uint64_t sp)
{
	runtime_patch_end_frames_below(sp);
	runtime_patch_unwinding = 0;
	for (uint32_t i = 0; i < runtime_shadow_depth; i++)
		swap_return_address(&runtime_shadow[i], runtime_shadow[i].original,
				    frame_landing(&runtime_shadow[i]));
}

typedef int (*raise_fn)(void *);
typedef void *(*catch_fn)(void *);

RUNTIME_EXPORT int _Unwind_RaiseException(void *exception)
{
	static raise_fn real;
	if (!real)
		real = (raise_fn)dlsym(RTLD_NEXT, "_Unwind_RaiseException");
	shadow_restore_all();
	return real ? real(exception) : 5 /* _URC_END_OF_STACK */;
}

RUNTIME_EXPORT int _Unwind_Resume_or_Rethrow(void *exception)
{
	static raise_fn real;
	if (!real)
		real = (raise_fn)dlsym(RTLD_NEXT, "_Unwind_Resume_or_Rethrow");
	shadow_restore_all();
	return real ? real(exception) : 5;
}

RUNTIME_EXPORT void *__cxa_begin_catch(void *exception)
{
	static catch_fn real;
	if (!real)
		real = (catch_fn)dlsym(RTLD_NEXT, "__cxa_begin_catch");
	if (runtime_shadow_depth || runtime_patch_unwinding)
		shadow_resume_after_catch((uint64_t)__builtin_dwarf_cfa()); /* the caller's sp */
	return real ? real(exception) : NULL;
}

/* The unwinder's entry points an attached runtime watches: the raise and
 * rethrow (every real return address back first), the catch. */
static uint64_t unwinder_entries[3];
static const char *const unwinder_names[3] = {"_Unwind_RaiseException", "_Unwind_Resume_or_Rethrow",
					      "__cxa_begin_catch"};

int runtime_patch_unwinder_notice(uint64_t address, uint64_t *slot)
{
	if (address == unwinder_entries[0] || address == unwinder_entries[1]) {
		shadow_restore_all();
		return 1;
	}
	if (address != unwinder_entries[2])
		return 0;
	if (runtime_shadow_depth ||
	    runtime_patch_unwinding) /* the catch's caller's stack pointer */
		shadow_resume_after_catch((uint64_t)(slot + 1));
	return 1;
}

int runtime_patch_is_unwinder(uint64_t address)
{
	return address && (address == unwinder_entries[0] || address == unwinder_entries[1] ||
			   address == unwinder_entries[2]);
}

/* Attached: patches the entries of the unwinder's functions that the
 * runtime's own definitions above cannot take over (once: they stay
 * patched after a detach, for the calls whose returns still come through
 * the runtime). */
void runtime_patch_watch_unwinder(void)
{
	Dl_info self;
	dladdr((void *)runtime_patch_enter_stub, &self);
	for (int i = 0; i < 3; i++) {
		Dl_info info;
		const ElfW(Sym) *sym = NULL;
		if (unwinder_entries[i])
			continue; /* patched by an earlier attach, and left so */
		void *address = dlsym(RTLD_DEFAULT, unwinder_names[i]);
		if (!address || !dladdr1(address, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
		    info.dli_fbase == self.dli_fbase)
			continue;
		size_t size = sym->st_size ? (size_t)sym->st_size : 1;
		if (runtime_patch_entry((uint64_t)address, size, 16, NULL, 0) == PATCH_OK)
			unwinder_entries[i] = (uint64_t)address;
		else
			runtime_debug("cannot watch %s: exceptions may not pass traced calls",
				      unwinder_names[i]);
	}
	runtime_patch_unwinder_watched = 1;
}
