/*
 * patch_shadow.h - what the in-process engine's entry (patch_engine.c) and
 * its shadow stack (patch_shadow.c) share.
 */
#ifndef CALLTRACE_PATCH_SHADOW_H
#define CALLTRACE_PATCH_SHADOW_H

#include <stdint.h>
#include "../../patch/patch.h"
#include "../core/hook_fast.h"

struct func_plan;

/* patch_engine.c: patches the entry of the function of `size` bytes at
 * `address` (`room` bytes after it belong to no function). */
enum patch_verdict runtime_patch_entry(uint64_t address, size_t size, size_t room,
				       const struct func_plan *plan, int by_hooks);
/* The same for a function whose first bytes were `code` (a copy: its
 * entry may hold a mark now).  On PATCH_OK, *entry_at is where its calls
 * go in; *trapped is 1 when the entry is too short for the jump and keeps
 * its mark (every call comes through the trap), else the jump is written. */
enum patch_verdict runtime_patch_build(uint64_t address, const uint8_t *code, size_t size,
				       size_t room, const struct func_plan *plan, int by_hooks,
				       uint64_t *entry_at, int *trapped);
/* patch_lazy.c: marks the entry of a function to be patched at its first
 * call (the mark is written by runtime_patch_marks_write).  0, or -1. */
int runtime_patch_mark(uint64_t address, size_t size, size_t room, const struct func_plan *plan,
		       int by_hooks);
/* Writes the marks noted since the last call, those of the module at
 * `path` (load bias `bias`); sets the trap up once. */
void runtime_patch_marks_write(const char *path, int with_eh_frame, uint64_t bias);
/* Functions marked, those that ran (patched or trapped) and of those the
 * ones that keep their trap; since the last runtime_patch_marks_forget. */
struct patch_lazy_counts {
	uint32_t marked, ran, trapped;
	uint32_t warm; /* patched with the marks: they ran in an earlier process */
};
struct patch_lazy_counts runtime_patch_lazy_counts(void);
/* The ARCH_MARK_LEN bytes a mark took at `address`, into `out`; 0, or -1
 * when there is no mark there (`out` left as it is). */
int runtime_patch_original(uint64_t address, uint8_t *out);
/* Attached, at the stop: no entry is patched any more (a first call then
 * takes its mark back and runs untraced); once no thread is inside the
 * runtime, runtime_patch_marks_remove puts back the bytes of the marks
 * still there (how many).  runtime_patch_marks_forget forgets them all (a
 * new start). */
void runtime_patch_marks_stop(void);
uint32_t runtime_patch_marks_remove(void);
void runtime_patch_marks_forget(void);
/* A module unloaded: the marks (and entries patched) of functions in
 * [lo, hi) are forgotten, so that code mapped there later is not taken for
 * theirs.  How many. */
uint32_t runtime_patch_marks_drop(uint64_t lo, uint64_t hi);
/* Whether the marks' SIGTRAP handler is in place; the program's SIGTRAP
 * handler set (act) or read (old) while it is: kept aside, for the traps
 * that are not marks (0). */
struct sigaction;
void runtime_patch_trap_install(void);
int runtime_patch_trap_active(void);
int runtime_patch_trap_chain(const struct sigaction *act, struct sigaction *old);
/* patch_lazy.c: where the thread that trapped at `pc` goes on: the
 * trampoline, the entry again (the mark is gone), or 0 when the trap is
 * not a mark. */
uint64_t runtime_patch_resume_after_trap(uint64_t pc);
/* patch_signals.c: the C library's sigaction, whatever takes it over. */
int runtime_patch_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* patch_engine.c: the verdict of a function patched at its first call. */
void runtime_patch_count_verdict(enum patch_verdict v);

/* patch_engine.c: the dynamic linker's notice (_dl_debug_state), whose
 * entry says modules came or went. */
extern uint64_t runtime_patch_loader_notice;
/* patch_fast.c: the common case of an enter (where to resume) and of a
 * return (the real return address); 0: take the checked path. */
struct patch_record;
uint64_t runtime_patch_enter_fast(const struct patch_record *r, uint64_t *slot);
uint64_t runtime_patch_return_fast(uint64_t sp);

/* A library is patched (--module): the runtime's own calls into it may
 * come to the stubs. */
extern int runtime_patch_libraries_patched;

/* One call whose return address the shadow stack keeps (patch_shadow.c). */
struct func_plan;
struct libcall_site;
struct shadow_frame {
	uint64_t *slot;	   /* where the return address was */
	uint64_t original; /* the return address */
	uint64_t function;
	union {
		const struct func_plan *plan; /* to read its return value, or NULL */
		struct libcall_site *site;    /* a library call's (SHADOW_LIBCALL) */
	};
	uint64_t by_hooks;  /* its exit is the hooks' to record; or SHADOW_LIBCALL */
	uint64_t result_at; /* where a result in memory goes (runtime_args_result_at) */
	uint64_t *saved_at; /* where the swapped return address was found: the slot, or
			       where the function saved it (shadow_restore_all) */
};
#define SHADOW_LIBCALL 2

/* The thread's shadow stack, innermost frame last (patch_shadow.c grows it). */
extern __thread struct shadow_frame *runtime_shadow __attribute__((tls_model("initial-exec")));
extern __thread uint32_t runtime_shadow_depth __attribute__((tls_model("initial-exec")));
extern __thread uint32_t runtime_shadow_cap __attribute__((tls_model("initial-exec")));

/* Whether a frame can be pushed without growing the stack. */
static inline int shadow_has_room(void)
{
	return runtime_shadow_depth < runtime_shadow_cap;
}

/* Pushes a frame (shadow_has_room): counted before it is written, so that
 * a signal handler's calls meanwhile push theirs above it, not over it. */
static inline void shadow_put(uint64_t *slot, uint64_t function, const void *plan,
			      uint64_t by_hooks, uint64_t result_at)
{
	uint32_t d = runtime_shadow_depth;
	runtime_shadow_depth = d + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	runtime_shadow[d] =
	    (struct shadow_frame){slot, *slot, function, {.plan = plan}, by_hooks, result_at, slot};
}

/* The innermost frame when its return address was the word below `sp`
 * (the common return), else NULL. */
static inline struct shadow_frame *shadow_innermost_at(uint64_t sp)
{
	uint32_t d = runtime_shadow_depth;
	struct shadow_frame *f = &runtime_shadow[d - 1];
	if (__builtin_expect(d == 0 || (uint64_t)(f->slot + 1) != sp, 0))
		return NULL;
	return f;
}

/* The exit of the innermost frame f by the hooks' fast path, and f popped:
 * the real return address; 0, with nothing changed, when that path cannot
 * write it. */
static inline uint64_t shadow_return_fast(struct thread_state *t, const struct shadow_frame *f)
{
	uint32_t state = RUNTIME_LOAD(runtime_state);
	if (__builtin_expect(state == 0, 0) || !hook_fast_exit(t, state, f->function))
		return 0;
	uint64_t original = f->original;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	runtime_shadow_depth--;
	return original;
}

/* patch_shadow.c: the call's return comes through the return stub, its
 * real return address kept on the thread's shadow stack (and where its
 * result goes when it is returned in memory: runtime_args_result_at). */
void runtime_patch_hijack_return(uint64_t *slot, uint64_t function, const struct func_plan *plan,
				 int by_hooks, uint64_t result_at);
/* A library call's return (libcall_record.c) comes through the return
 * stub too, by way of `landing` (the stub, or a pad that jumps there). */
void runtime_patch_hijack_libcall(uint64_t *slot, struct libcall_site *site, uint64_t landing);
/* An exception is on its way up this thread's stack: frames below a call
 * being made are frames it has left. */
extern __thread int runtime_patch_unwinding __attribute__((tls_model("initial-exec")));
/* The frames whose return address lies below `limit` were left by an
 * exception: their calls end now. */
void runtime_patch_end_frames_below(uint64_t limit);
/* In an attached process the runtime came after the unwinder, so its own
 * _Unwind_RaiseException & co do not interpose: the entries of the real
 * ones are patched instead (runtime_patch_watch_unwinder, once), and a
 * call of one is noticed by runtime_patch_unwinder_notice (1 when it was
 * one of them). */
extern int runtime_patch_unwinder_watched;
void runtime_patch_watch_unwinder(void);
int runtime_patch_unwinder_notice(uint64_t address, uint64_t *slot);

#endif
