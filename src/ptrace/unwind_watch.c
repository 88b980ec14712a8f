/*
 * unwind_watch.c - C++ exceptions and forced unwinding (pthread_exit,
 * cancellation) through traced frames.
 *
 * An unwinder reads return addresses off the stack to find each frame's
 * unwind information, so it must not find the trap there.  A breakpoint on
 * each way into the unwinder (_Unwind_RaiseException,
 * _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind) puts the real return
 * addresses back for the thread; while it unwinds, a traced function that
 * is entered (a destructor run by a landing pad) first closes the frames
 * that have been unwound below it; at __cxa_begin_catch the frames below
 * the handler are closed and the live ones get their trap again.  So the
 * tree ends every frame where the runtime's exit hooks would have.
 *
 * Above instrument.c (which arms the breakpoints) and return_trap.c (the
 * frames); a hit is dispatched here by special_stops.c.
 */
#include <string.h>
#include "../utils/glibc_jmpbuf.h"
#include "elf_image.h"
#include "engine.h"

static const char *const unwind_entries[] = {
    "_Unwind_RaiseException",
    "_Unwind_Resume_or_Rethrow",
    "_Unwind_ForcedUnwind",
};

static const char *const jump_entries[] = {"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk"};

static const char *module_base_name(const struct module *m)
{
	const char *base = strrchr(m->path, '/');
	return base ? base + 1 : m->path;
}

/* Only the C++ runtime, libgcc and a static executable define these. */
static int may_define_unwinder(const struct module *m)
{
	const char *base = module_base_name(m);
	return m->is_exe || strncmp(base, "libgcc_s", 8) == 0 ||
	       strncmp(base, "libstdc++", 9) == 0 || strncmp(base, "libc++", 6) == 0 ||
	       strncmp(base, "libunwind", 9) == 0;
}

static int may_define_longjmp(const struct module *m)
{
	const char *base = module_base_name(m);
	return m->is_exe || strncmp(base, "libc.so", 7) == 0 || strncmp(base, "libc-", 5) == 0;
}

/* Arms a breakpoint of `kind` on each of `names` the module defines. */
static int watch_symbols(struct engine *e, struct thread *t, size_t index, struct elf_image *im,
			 const char *const *names, size_t n, enum bp_kind kind)
{
	uint64_t vaddr, bias = t->proc->modules[index].bias;
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++)
		if (elf_image_symbol(im, names[i], &vaddr) == 0)
			rc = special_breakpoint(e, t, index, vaddr + bias, kind);
	return rc;
}

int unwind_watch(struct engine *e, struct thread *t, size_t index)
{
	const struct module *m = &t->proc->modules[index];
	int unwinder = may_define_unwinder(m), jumps = may_define_longjmp(m);
	struct elf_image im;
	int rc = 0;
	if ((!unwinder && !jumps) || elf_image_open(&im, m->path) < 0)
		return 0;
	if (unwinder) {
		rc = watch_symbols(e, t, index, &im, unwind_entries,
				   sizeof(unwind_entries) / sizeof(*unwind_entries), BP_UNWIND);
		if (rc == 0)
			rc = watch_symbols(e, t, index, &im,
					   (const char *const[]){"__cxa_begin_catch"}, 1, BP_CATCH);
	}
	if (jumps && rc == 0)
		rc = watch_symbols(e, t, index, &im, jump_entries,
				   sizeof(jump_entries) / sizeof(*jump_entries), BP_LONGJMP);
	elf_image_close(&im);
	return rc;
}

void longjmp_hit(struct thread *t, const struct user_regs_struct *r)
{
	uint64_t mangled, guard;
	uint64_t at = r->rdi + 8 * GLIBC_JB_RSP;
	if (mem_read(t->proc, at, &mangled, 8) < 0 ||
	    mem_read(t->proc, r->fs_base + GLIBC_POINTER_GUARD_OFFSET, &guard, 8) < 0)
		return;
	uint64_t target = glibc_demangle_pointer(mangled, guard);
	if (target <= r->rsp || target - r->rsp > (1ull << 30))
		return; /* not a stack pointer above us: unknown mangling */
	frames_abandon_below(t, target, trace_clock_tick());
}

void unwind_hit(struct engine *e, struct thread *t, const struct breakpoint *bp, uint64_t rsp)
{
	(void)e;
	if (bp->kind == BP_UNWIND) {
		frames_unswap(t);
		t->unwinding = 1;
		return;
	}
	frames_close_below(t, rsp, trace_clock_tick());
	frames_reswap(t);
	t->unwinding = 0;
}
