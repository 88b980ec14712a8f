/*
 * patch_lock.h - the one lock under which the in-process engine changes
 * code: marks, first calls, a module's patching (see patch_lock.c).
 */
#ifndef CALLTRACE_RUNTIME_PATCH_LOCK_H
#define CALLTRACE_RUNTIME_PATCH_LOCK_H

void runtime_patch_lock(void);
void runtime_patch_unlock(void);
/* Whether the calling thread holds it: a trap met by the runtime's own
 * work under the lock. */
int runtime_patch_lock_mine(void);

/* patch_lazy.c, called by the fork handlers with the lock held: before a
 * fork, and in the child after it. */
void runtime_patch_before_fork(void);
void runtime_patch_in_fork_child(void);

#endif
