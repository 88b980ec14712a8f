/*
 * symbols_internal.h - the pieces behind symbols.c: interned strings, one
 * ELF file opened with libdwfl, its functions sorted by address, and the
 * demangler.  Private to src/symbols/.
 */
#ifndef CALLTRACE_SYMBOLS_INTERNAL_H
#define CALLTRACE_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* --- strpool.c: a set of strings, each stored once, freed all together --- */

struct strpool;

struct strpool *strpool_new(void);
void strpool_free(struct strpool *p);
/* The pool's copy of `s` (the same pointer for equal strings), or NULL
 * when out of memory. */
const char *strpool_intern(struct strpool *p, const char *s);

/* --- elf_module.c: one ELF file, opened lazily with its own Dwfl --- */

struct elf_module;

/* Never NULL unless out of memory; the file is opened on first use.  With
 * `warn`, a file that cannot be read is reported once on stderr. */
struct elf_module *elf_module_new(const char *path, const uint8_t *build_id, size_t build_id_len,
				  int warn);
void elf_module_free(struct elf_module *m);
const char *elf_module_path(const struct elf_module *m);
int elf_module_matches(const struct elf_module *m, const char *path, const uint8_t *build_id,
		       size_t build_id_len);

/* The raw (mangled) name of the function holding `file_address`, or NULL.
 * The string lives as long as the module. */
const char *elf_module_function(struct elf_module *m, uint64_t file_address);
/* The source file and line of `file_address`; returns the file or NULL.
 * The file may be written into `buf` (a relative path made absolute). */
const char *elf_module_source(struct elf_module *m, uint64_t file_address, uint32_t *line,
			      char *buf, size_t buflen);

/* The GOT slot of a library call at `file_address` (elf_dynamic.c), or
 * NULL when no JUMP_SLOT or GLOB_DAT relocation fills one there. */
const struct got_slot *elf_module_got_slot(struct elf_module *m, uint64_t file_address);
/* 1 if the module's dynamic symbol table defines `name`, else 0. */
int elf_module_defines(struct elf_module *m, const char *name);
/* The exported function at `file_address` (elf_dynamic_exported_at), or NULL. */
const char *elf_module_exported_at(struct elf_module *m, uint64_t file_address);

/* --- elf_dynamic.c: GOT slots and the names a module exports --- */

struct Elf;

struct got_slot {
	uint64_t address;    /* r_offset: the slot's file address */
	const char *name;    /* the function bound there (owned by the Elf) */
	const char *version; /* its symbol version ("GLIBC_2.2.5"), or NULL */
};

struct exported_function {
	uint64_t address;
	const char *name;
};

struct elf_dynamic {
	struct got_slot *slots; /* by address */
	size_t nslots;
	const char **defined; /* names .dynsym defines, sorted */
	size_t ndefined;
	struct exported_function *exported; /* .dynsym's functions, by address */
	size_t nexported;
};

/* Reads both tables of `elf`; 0, or -1 when out of memory. */
int elf_dynamic_read(struct elf_dynamic *d, struct Elf *elf);
void elf_dynamic_free(struct elf_dynamic *d);
const struct got_slot *elf_dynamic_slot(const struct elf_dynamic *d, uint64_t file_address);
int elf_dynamic_defines(const struct elf_dynamic *d, const char *name);
/* The name a program gives the function exported at `file_address` (of
 * aliases, the one with the fewest leading underscores), or NULL. */
const char *elf_dynamic_exported_at(const struct elf_dynamic *d, uint64_t file_address);

/* --- func_index.c: the functions of a module, sorted by address --- */

struct Dwfl_Module;
struct func_entry;

struct func_index {
	struct func_entry *entries;
	size_t count;
};

/* Reads the module's symbol table once; -1 when out of memory. */
int func_index_build(struct func_index *ix, struct Dwfl_Module *mod);
void func_index_free(struct func_index *ix);
/* The name of the function holding `addr`, or NULL. */
const char *func_index_find(const struct func_index *ix, uint64_t addr);

/* --- demangle.c --- */

/* A malloc'd copy of the name shown for the ELF symbol `raw`: demangled if
 * it is a C++ name, without its symbol version ("@GLIBC_2.2.5").  NULL only
 * when out of memory. */
char *symbol_display_name(const char *raw);

/* The names of the ELF symbol `raw` (its version left out), malloc'd: as
 * the views show it (symbol_set_name_style), short, demangled in full,
 * mangled. */
struct symbol_names {
	char *shown, *brief, *full, *mangled;
};
/* -1 when out of memory (nothing to free then). */
int symbol_names_of(const char *raw, struct symbol_names *out);
void symbol_names_free(struct symbol_names *n);

#endif
