/*
 * prototypes_syscall.c - a system call's name and prototype by its number
 * (see prototypes.h), from the generated per-machine tables
 * (prototypes_syscalls.c).
 */
#include <elf.h>
#include <stdio.h>
#include "prototypes_internal.h"

static const struct syscall_table *table_of(uint32_t machine)
{
	if (machine == 0) /* trace_file_header.machine: 0 is x86-64 */
		machine = EM_X86_64;
	for (unsigned i = 0; i < proto_syscall_table_count; i++)
		if (proto_syscall_tables[i].machine == machine)
			return &proto_syscall_tables[i];
	return NULL;
}

const char *syscall_name(uint32_t machine, uint64_t nr, const struct prototype **proto)
{
	static _Thread_local char unknown[32];
	const struct syscall_table *table = table_of(machine);
	if (proto)
		*proto = NULL;
	if (table && nr < table->count && table->names[nr]) {
		if (proto)
			*proto = table->protos[nr];
		return table->names[nr];
	}
	snprintf(unknown, sizeof(unknown), "syscall_%llu", (unsigned long long)nr);
	return unknown;
}
