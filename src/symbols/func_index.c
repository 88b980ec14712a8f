/*
 * func_index.c - the functions of one ELF module sorted by address, for
 * lookups in O(log n).
 *
 * dwfl_module_addrinfo() scans the whole symbol table on every call, which
 * is too slow for a table of 100k symbols; this index reads the symbols once
 * (from whatever table libdwfl chose: .symtab, the separate debug file's,
 * .gnu_debugdata or .dynsym).  Of several names at one address (aliases)
 * it keeps the one a reader expects: sized, then global over weak over
 * local, then with the fewest leading underscores.
 */
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdlib.h>
#include "symbols_internal.h"

/* How far back to look for a function that encloses a smaller one. */
#define MAX_NESTING 16

struct func_entry {
	uint64_t addr, size;
	const char *name; /* owned by the module's Dwfl */
	uint32_t order;	  /* position in the symbol table, for ties */
	uint8_t binding_rank, underscores;
};

static int is_function_symbol(const GElf_Sym *sym, GElf_Word shndx, const char *name)
{
	int type = GELF_ST_TYPE(sym->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC)
		return 0;
	return shndx != SHN_UNDEF && name && *name;
}

static uint8_t binding_rank(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 2;
	case STB_WEAK:
		return 1;
	default:
		return 0;
	}
}

static uint8_t leading_underscores(const char *name)
{
	uint8_t n = 0;
	while (name[n] == '_' && n < 255)
		n++;
	return n;
}

/* By address; at one address, the preferred name first. */
static int compare_entries(const void *pa, const void *pb)
{
	const struct func_entry *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if ((a->size > 0) != (b->size > 0))
		return a->size > 0 ? -1 : 1;
	if (a->binding_rank != b->binding_rank)
		return a->binding_rank > b->binding_rank ? -1 : 1;
	if (a->underscores != b->underscores)
		return a->underscores < b->underscores ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static size_t collect(struct func_entry *v, struct Dwfl_Module *mod, int count)
{
	size_t n = 0;
	for (int i = 1; i < count; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *elf;
		Dwarf_Addr bias;
		const char *name =
		    dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx, &elf, &bias);
		if (!is_function_symbol(&sym, shndx, name))
			continue;
		v[n++] = (struct func_entry){
		    .addr = addr,
		    .size = sym.st_size,
		    .name = name,
		    .order = (uint32_t)i,
		    .binding_rank = binding_rank(&sym),
		    .underscores = leading_underscores(name),
		};
	}
	return n;
}

/* Keeps the first (preferred) entry of each address. */
static size_t drop_aliases(struct func_entry *v, size_t n)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (kept == 0 || v[kept - 1].addr != v[i].addr)
			v[kept++] = v[i];
	return kept;
}

int func_index_build(struct func_index *ix, struct Dwfl_Module *mod)
{
	ix->entries = NULL;
	ix->count = 0;
	int count = dwfl_module_getsymtab(mod);
	if (count <= 1)
		return 0;
	ix->entries = malloc((size_t)count * sizeof(*ix->entries));
	if (!ix->entries)
		return -1;
	size_t n = collect(ix->entries, mod, count);
	qsort(ix->entries, n, sizeof(*ix->entries), compare_entries);
	ix->count = drop_aliases(ix->entries, n);
	return 0;
}

void func_index_free(struct func_index *ix)
{
	free(ix->entries);
	ix->entries = NULL;
	ix->count = 0;
}

static int encloses(const struct func_entry *e, uint64_t addr)
{
	uint64_t offset = addr - e->addr;
	/* A symbol without a size only names its own first byte. */
	return e->size > 0 ? offset < e->size : offset == 0;
}

const char *func_index_find(const struct func_index *ix, uint64_t addr)
{
	size_t lo = 0, hi = ix->count; /* first entry above addr, by bisection */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->entries[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, seen = 0; i > 0 && seen < MAX_NESTING; i--, seen++)
		if (encloses(&ix->entries[i - 1], addr))
			return ix->entries[i - 1].name;
	return NULL;
}
