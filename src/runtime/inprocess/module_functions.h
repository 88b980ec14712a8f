/*
 * module_functions.h - the functions of a module the in-process engine
 * patches, listed once per session (see module_functions.c).
 */
#ifndef CALLTRACE_RUNTIME_MODULE_FUNCTIONS_H
#define CALLTRACE_RUNTIME_MODULE_FUNCTIONS_H

#include "../../patch/elf_functions.h"

/* elf_functions_each, through the session's cache of function lists
 * (CALLTRACE_FUNCTION_CACHE: a folder); -v says where the list came from.
 * *decode_all (optional) is set when the module's entries should be
 * decoded now, for the session (runtime_module_decode_all): its list came
 * from the cache, which has no decodings yet. */
int runtime_module_functions(const char *path, elf_function_fn each, void *ctx,
			     struct elf_file_facts *facts, int *decode_all);

/* Decodes the entries of every function of the module at `path`, loaded
 * at `bias` and not marked yet, into the session's cache. */
void runtime_module_decode_all(const char *path, uint64_t bias, const struct elf_file_facts *facts);

#endif
