/*
 * dwarf_plans.c - capture plans for the runtime, read from DWARF.
 *
 * Built, with func_signature.c, into libcalltrace-dwarf.so: the runtime
 * loads it only when arguments are captured (runtime/args/args_plans.c), so
 * that libdw never enters a program otherwise.  It runs inside the traced
 * program, marked as the runtime's own work.
 */
#include "func_signature.h"

#include <string.h>

static struct signature_table *table;

/* The plan of the function at `file_address` of the ELF file `path`: 0, or
 * -1 when its DWARF does not describe it, or its calling convention is
 * not the ABI's (a compiler's clone). */
__attribute__((visibility("default"))) int
calltrace_dwarf_plan(const char *path, uint64_t file_address, struct func_plan *plan)
{
	if (!table && !(table = signature_table_new()))
		return -1;
	const struct func_signature *s = signature_table_lookup(table, path, file_address);
	if (!s || !s->abi_known)
		return -1;
	memcpy(plan, &s->plan, sizeof(*plan));
	return 0;
}
