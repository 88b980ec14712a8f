/*
 * special_functions.h - functions whose return address must stay theirs,
 * and fragments that are no functions (see special_functions.c).
 */
#ifndef CALLTRACE_PATCH_SPECIAL_FUNCTIONS_H
#define CALLTRACE_PATCH_SPECIAL_FUNCTIONS_H

/* Whether the function named `name` keeps or reads its own return
 * address, or returns twice: never instrumented. */
int patch_keeps_return_address(const char *name);

/* Whether the symbol named `name` is a fragment of a function, jumped
 * into and never called (`foo.cold`): never instrumented. */
int patch_is_fragment(const char *name);

#endif
