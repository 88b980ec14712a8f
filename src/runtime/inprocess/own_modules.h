/*
 * own_modules.h - which loaded modules the in-process engine records: the
 * program, the shared libraries and plugins that are its own, and those
 * --module names (see own_modules.c).
 */
#ifndef CALLTRACE_RUNTIME_OWN_MODULES_H
#define CALLTRACE_RUNTIME_OWN_MODULES_H

#include <regex.h>
#include <stdint.h>

/* Whether the calls of the module at `path` are recorded as function
 * calls: the main executable (`is_main`), a library `pattern` (--module,
 * may be NULL) matches, or, unless CALLTRACE_PATCH_OWN=0, a library of the
 * program's own (outside the system's library folders).  With `say` and
 * CALLTRACE_PATCH_VERBOSE, one line says the choice and why. */
int runtime_module_recorded(const char *path, int is_main, const regex_t *pattern, int say);

/* Whether `path` is one of the system's libraries (/lib, /usr/lib,
 * /usr/local/lib, their 32/64-bit twins and every folder below them). */
int runtime_module_in_system_folder(const char *path);

/* The answer for the module last looked at, kept by a caller for the
 * lookups of one pass over a module's slots (most go to the C library);
 * no longer: modules come and go between passes. */
struct module_memo {
	uint64_t lo, hi; /* the module's span; empty: nothing kept */
	int recorded;
};

/* Whether the function at `address` lies in a module the in-process
 * engine records (runtime_module_recorded, with CALLTRACE_PATCH_MODULES),
 * or one built with -finstrument-functions whose hooks record it: a call
 * into it through a GOT slot or a dlsym pointer is then recorded once, by
 * the function, not also as a library call.  `memo` (or NULL) answers for
 * the module it holds, and keeps the answer found. */
int runtime_module_recorded_at(uint64_t address, struct module_memo *memo);

#endif
