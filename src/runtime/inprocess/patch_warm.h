/*
 * patch_warm.h - the functions that ran in the session's earlier processes
 * are patched at start (see patch_warm.c).
 */
#ifndef CALLTRACE_RUNTIME_PATCH_WARM_H
#define CALLTRACE_RUNTIME_PATCH_WARM_H

#include <stdint.h>

/* Before a module's functions are marked: its list is read. */
void runtime_patch_warm_begin(const char *path, int with_eh_frame);
/* Whether the function at `address` (as the module's list of functions
 * gives it; asked in ascending order) ran in an earlier process. */
int runtime_patch_warm_has(uint64_t address);
/* After: the module at `bias`, its functions in [lo, hi), is one whose
 * list is written again when the process ends. */
void runtime_patch_warm_end(const char *path, int with_eh_frame, uint64_t bias, uint64_t lo,
			    uint64_t hi);
/* The module at `bias` is gone. */
void runtime_patch_warm_drop(uint64_t bias);
/* runtime_patch_warm_save (runtime.h): at an exit, the lists get the
 * functions whose first calls came here. */

#endif
