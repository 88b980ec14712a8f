/*
 * elf_functions.h - the functions an ELF file defines (see elf_functions.c).
 */
#ifndef CALLTRACE_PATCH_ELF_FUNCTIONS_H
#define CALLTRACE_PATCH_ELF_FUNCTIONS_H

#include <stdint.h>

struct elf_function {
	uint64_t address; /* file address (st_value) */
	uint64_t size;
	uint64_t padding; /* bytes after it that belong to no function */
	const char *name; /* valid during the call only */
};

typedef void (*elf_function_fn)(const struct elf_function *f, void *ctx);

/* Calls `each` for each function of the ELF file at `path`, in address
 * order, aliases once; *entry (optional) gets the file's entry point.
 * 0, or -1 when the file cannot be read as 64-bit ELF. */
int elf_functions_each(const char *path, elf_function_fn each, void *ctx, uint64_t *entry);

#endif
