/*
 * patch_shadow.h - what the in-process engine's entry (patch_engine.c) and
 * its shadow stack (patch_shadow.c) share.
 */
#ifndef CALLTRACE_PATCH_SHADOW_H
#define CALLTRACE_PATCH_SHADOW_H

#include <stdint.h>
#include "../patch/patch.h"

struct func_plan;

/* patch_engine.c: patches the entry of the function of `size` bytes at
 * `address` (`room` bytes after it belong to no function). */
enum patch_verdict runtime_patch_entry(uint64_t address, size_t size, size_t room,
				       const struct func_plan *plan, int by_hooks);
/* A library is patched (--module): the runtime's own calls into it may
 * come to the stubs. */
extern int runtime_patch_libraries_patched;

/* patch_shadow.c: the call's return comes through the return stub, its
 * real return address kept on the thread's shadow stack. */
void runtime_patch_hijack_return(uint64_t *slot, uint64_t function, const struct func_plan *plan,
				 int by_hooks);
/* A library call's return (libcall_record.c) comes through the return
 * stub too, by way of `landing` (the stub, or a pad that jumps there). */
#define SHADOW_LIBCALL 2
struct libcall_site;
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
