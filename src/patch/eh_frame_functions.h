/*
 * eh_frame_functions.h - function entries from .eh_frame, for files with no
 * symbol table (see eh_frame_functions.c).
 */
#ifndef CALLTRACE_PATCH_EH_FRAME_FUNCTIONS_H
#define CALLTRACE_PATCH_EH_FRAME_FUNCTIONS_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

typedef void (*eh_frame_function_fn)(uint64_t address, uint64_t size, void *ctx);

/* Calls `each` (may be NULL) for every function entry that .eh_frame_hdr
 * lists in the ELF file mapped at `file` (`size` bytes, header `eh`), with
 * the FDE's length as its size, in the table's (address) order; returns
 * how many. */
size_t eh_frame_functions(const uint8_t *file, size_t size, const Elf64_Ehdr *eh,
			  eh_frame_function_fn each, void *ctx);

#endif
