/*
 * elf_functions.h - the functions an ELF file defines (see elf_functions.c).
 */
#ifndef CALLTRACE_PATCH_ELF_FUNCTIONS_H
#define CALLTRACE_PATCH_ELF_FUNCTIONS_H

#include <stdint.h>

struct patch_decoded;

struct elf_function {
	uint64_t address; /* file address (st_value) */
	uint64_t size;
	uint64_t padding; /* bytes after it that belong to no function */
	const char *name; /* valid during the call only */
	/* Its entry's decoding, from a session's cache (function_cache.c):
	 * valid as long as the process; NULL when there is none. */
	const struct patch_decoded *decoded;
};

typedef void (*elf_function_fn)(const struct elf_function *f, void *ctx);

/* What elf_functions_each learns of the file as a whole. */
struct elf_file_facts {
	uint64_t entry;	  /* the entry point */
	int instrumented; /* it calls __cyg_profile_func_enter
			     (-finstrument-functions) */
	/* Set by the caller: a stripped file's .eh_frame entries are wanted
	 * too (not for libraries, whose hand-written assembly may jump into
	 * another function's first bytes: glibc's mempcpy into memcpy). */
	int with_eh_frame;
	/* Functions the walk gives at most, known before its first call of
	 * `each` (a table sized once for them). */
	uint64_t count;
};

/* Calls `each` for each function of the ELF file at `path`, in address
 * order, aliases once; *facts (optional) gets what it says, and says
 * whether .eh_frame's entries are wanted.  0, or -1 when
 * the file cannot be read as 64-bit ELF.  `each` may be NULL. */
int elf_functions_each(const char *path, elf_function_fn each, void *ctx,
		       struct elf_file_facts *facts);

#endif
