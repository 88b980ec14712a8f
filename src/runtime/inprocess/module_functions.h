/*
 * module_functions.h - the functions of a module the in-process engine
 * patches, listed once per session (see module_functions.c).
 */
#ifndef CALLTRACE_RUNTIME_MODULE_FUNCTIONS_H
#define CALLTRACE_RUNTIME_MODULE_FUNCTIONS_H

#include "../../patch/elf_functions.h"

/* elf_functions_each, through the session's cache of function lists
 * (CALLTRACE_FUNCTION_CACHE: a folder); -v says where the list came from. */
int runtime_module_functions(const char *path, elf_function_fn each, void *ctx,
			     struct elf_file_facts *facts);

#endif
