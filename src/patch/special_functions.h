/*
 * special_functions.h - functions whose return address must stay theirs
 * (see special_functions.c).
 */
#ifndef CALLTRACE_PATCH_SPECIAL_FUNCTIONS_H
#define CALLTRACE_PATCH_SPECIAL_FUNCTIONS_H

/* Whether the function named `name` keeps or reads its own return
 * address, or returns twice: never instrumented. */
int patch_keeps_return_address(const char *name);

#endif
