/*
 * prototypes_internal.h - the generated tables behind prototypes.c and
 * prototypes_syscall.c (written by scripts/gen_prototypes.py).
 */
#ifndef CALLTRACE_PROTOTYPES_INTERNAL_H
#define CALLTRACE_PROTOTYPES_INTERNAL_H

#include <stddef.h>
#include "prototypes.h"

/* Library functions, sorted by name (strcmp order). */
extern const struct prototype proto_functions[];
extern const unsigned proto_function_count;

/* One machine's system calls: names[nr] (NULL where no call has that
 * number) and protos[nr] (NULL where the call has no prototype). */
struct syscall_table {
	uint32_t machine; /* ELF e_machine */
	unsigned count;	  /* numbers 0..count-1 */
	const char *const *names;
	const struct prototype *const *protos;
};
extern const struct syscall_table proto_syscall_tables[];
extern const unsigned proto_syscall_table_count;

#endif
