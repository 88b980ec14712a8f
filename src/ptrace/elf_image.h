/*
 * elf_image.h - what the engine reads from an ELF file: its load segments,
 * build-id, interpreter, named symbols, and the functions to instrument.
 */
#ifndef CALLTRACE_DYNAMIC_ELF_IMAGE_H
#define CALLTRACE_DYNAMIC_ELF_IMAGE_H

#include <gelf.h>
#include <regex.h>
#include <stddef.h>
#include <stdint.h>

struct elf_image {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	uint64_t first_vaddr, first_offset; /* first PT_LOAD, page-aligned */
	uint64_t min_vaddr, max_vaddr;	    /* span of all PT_LOADs */
	uint64_t exec_vaddr, exec_end;	    /* the executable PT_LOAD */
	uint8_t build_id[64];
	uint32_t build_id_len;
	char interp[256]; /* PT_INTERP, "" if none */
};

struct elf_function {
	uint64_t vaddr, size;
	const char *name; /* NULL when known only from .eh_frame */
};

struct elf_function_list {
	struct elf_function *v;
	size_t n, cap;
};

/* 0, or -1 when `path` is not a readable ELF file. */
int elf_image_open(struct elf_image *im, const char *path);
void elf_image_close(struct elf_image *im);
/* Looks a symbol up in .dynsym, then .symtab; 0 and *vaddr, or -1. */
int elf_image_symbol(struct elf_image *im, const char *name, uint64_t *vaddr);

/* The functions worth a breakpoint: FUNC symbols with a size in code
 * sections (start-up code, PLT stubs and cold fragments left out), or,
 * for a file without .symtab, the .eh_frame FDEs too.  Names point into
 * the image: use them before elf_image_close().  Sorted by address. */
int elf_functions_collect(struct elf_image *im, struct elf_function_list *out);
void elf_function_list_free(struct elf_function_list *l);

#endif
