/*
 * patch_shared.h - a module's code marked at start, shared by the
 * processes of a session through the cache folder (patch_shared.c).
 */
#ifndef CALLTRACE_PATCH_SHARED_H
#define CALLTRACE_PATCH_SHARED_H

#include <stddef.h>
#include <stdint.h>

/* Begins the writes into the code of the module at `path` (load bias
 * `bias`) whose marked functions lie in [lo, hi], about `writes` of them:
 * 1 when they are held back until runtime_patch_shared_end, its code to
 * come from the cache folder; 0 when they are made as they come.  `ran`:
 * functions of the module ran in an earlier process (it runs again: its
 * code is worth saving; a module met for the first time may never run
 * again, its code is not saved). */
int runtime_patch_shared_begin(const char *path, int with_eh_frame, uint64_t bias, uint64_t lo,
			       uint64_t hi, size_t writes, int ran);
/* Whether writes are held back now: the module's code in memory is its
 * file's, unmarked. */
int runtime_patch_shared_holding(void);
/* Ends them: the cache's code mapped over the module's, or the writes
 * made and the code saved for the next process.  0, or -1 when some
 * write could not be made. */
int runtime_patch_shared_end(void);

#endif
