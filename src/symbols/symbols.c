/*
 * symbols.c - the symbol table: a cache from (ELF file, file address) to a
 * resolved struct symbol.
 *
 * Symbols live in fixed-size blocks, so their pointers never move; a hash
 * table of ids finds them again.  Every string is owned by the table's
 * string pool.  The first lookup of an ELF file opens it (elf_module.c);
 * later ones reuse it.
 */
#include <elf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols.h"
#include "symbols_internal.h"
#include "prototypes.h"
#include "../format/trace_format.h"

#define BLOCK_SHIFT 12
#define BLOCK_LEN (1u << BLOCK_SHIFT)

/* An entry is found by (owner, key, kind).  Functions: the module (NULL:
 * outside every module) and the file address (runtime address when no
 * module).  Library calls: the providing module's interned path and the
 * interned name.  System calls, off-CPU intervals, kernel functions: NULL
 * and the call's "where". */
struct entry {
	struct symbol sym;
	const void *owner;
	uint64_t key;
};

struct symbol_table {
	struct entry **blocks;
	size_t nblocks;
	uint32_t count;
	uint32_t *slots; /* id + 1 of each entry, 0 = empty; a power of two long */
	size_t nslots;
	struct elf_module **modules;
	size_t nmodules;
	struct elf_module *last_module;
	struct strpool *strings;
};

/* Handed out only when memory runs out, so that lookups never return NULL. */
static struct symbol out_of_memory = {.name = "?", .module = "?"};

struct symbol_table *symbol_table_new(void)
{
	struct symbol_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->strings = strpool_new();
	if (!t->strings) {
		free(t);
		return NULL;
	}
	return t;
}

void symbol_table_free(struct symbol_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nblocks; i++)
		free(t->blocks[i]);
	free(t->blocks);
	free(t->slots);
	for (size_t i = 0; i < t->nmodules; i++)
		elf_module_free(t->modules[i]);
	free(t->modules);
	strpool_free(t->strings);
	free(t);
}

uint32_t symbol_table_count(const struct symbol_table *t)
{
	return t->count;
}

static struct entry *entry_at(const struct symbol_table *t, uint32_t id)
{
	return &t->blocks[id >> BLOCK_SHIFT][id & (BLOCK_LEN - 1)];
}

static size_t slot_of(const void *owner, uint64_t key, unsigned kind, size_t nslots)
{
	uint64_t h =
	    key ^ ((uint64_t)(uintptr_t)owner * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)kind << 59);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h & (nslots - 1);
}

static struct entry *find_entry(const struct symbol_table *t, const void *owner, uint64_t key,
				unsigned kind)
{
	if (t->nslots == 0)
		return NULL;
	for (size_t i = slot_of(owner, key, kind, t->nslots); t->slots[i];
	     i = (i + 1) & (t->nslots - 1)) {
		struct entry *e = entry_at(t, t->slots[i] - 1);
		if (e->owner == owner && e->key == key && e->sym.kind == kind)
			return e;
	}
	return NULL;
}

static int grow_slots(struct symbol_table *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 1024;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	for (uint32_t id = 0; id < t->count; id++) {
		struct entry *e = entry_at(t, id);
		size_t i = slot_of(e->owner, e->key, e->sym.kind, n);
		while (slots[i])
			i = (i + 1) & (n - 1);
		slots[i] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* A new, zeroed entry with the next id, indexed under (owner, key, kind). */
static struct entry *add_entry(struct symbol_table *t, const void *owner, uint64_t key,
			       unsigned kind)
{
	if ((t->count + 1) * 2 > t->nslots && grow_slots(t) < 0)
		return NULL;
	if ((t->count & (BLOCK_LEN - 1)) == 0) {
		struct entry **blocks = realloc(t->blocks, (t->nblocks + 1) * sizeof(*blocks));
		if (!blocks)
			return NULL;
		t->blocks = blocks;
		t->blocks[t->nblocks] = calloc(BLOCK_LEN, sizeof(struct entry));
		if (!t->blocks[t->nblocks])
			return NULL;
		t->nblocks++;
	}
	uint32_t id = t->count++;
	struct entry *e = entry_at(t, id);
	e->owner = owner;
	e->key = key;
	e->sym.id = id;
	e->sym.kind = (uint8_t)kind;
	size_t i = slot_of(owner, key, kind, t->nslots);
	while (t->slots[i])
		i = (i + 1) & (t->nslots - 1);
	t->slots[i] = id + 1;
	return e;
}

static struct elf_module *find_module(struct symbol_table *t, const char *path,
				      const uint8_t *build_id, size_t build_id_len)
{
	if (t->last_module && elf_module_matches(t->last_module, path, build_id, build_id_len))
		return t->last_module;
	int path_seen = 0;
	for (size_t i = 0; i < t->nmodules; i++) {
		struct elf_module *m = t->modules[i];
		if (elf_module_matches(m, path, build_id, build_id_len))
			return t->last_module = m;
		if (strcmp(elf_module_path(m), path) == 0)
			path_seen = 1;
	}
	struct elf_module **modules = realloc(t->modules, (t->nmodules + 1) * sizeof(*modules));
	if (!modules)
		return NULL;
	t->modules = modules;
	/* Another build-id of the same path has already said if it is readable. */
	struct elf_module *m = elf_module_new(path, build_id, build_id_len, !path_seen);
	if (!m)
		return NULL;
	t->modules[t->nmodules++] = m;
	return t->last_module = m;
}

/* The interned names of `raw` into sym (name, full_name, mangled); -1 when
 * out of memory. */
static int intern_names(struct symbol_table *t, const char *raw, struct symbol *sym)
{
	struct symbol_names n;
	if (symbol_names_of(raw, &n) < 0)
		return -1;
	sym->name = strpool_intern(t->strings, n.shown);
	sym->short_name = strpool_intern(t->strings, n.brief);
	sym->full_name = strpool_intern(t->strings, n.full);
	sym->mangled = strpool_intern(t->strings, n.mangled);
	symbol_names_free(&n);
	return sym->name && sym->short_name && sym->full_name && sym->mangled ? 0 : -1;
}

static int function_name(struct symbol_table *t, struct elf_module *m, uint64_t file_address,
			 struct symbol *sym)
{
	const char *raw = elf_module_function(m, file_address);
	if (raw)
		return intern_names(t, raw, sym);
	char buf[32];
	snprintf(buf, sizeof(buf), "sub_%" PRIx64, file_address);
	sym->name = strpool_intern(t->strings, buf);
	return sym->name ? 0 : -1;
}

const struct symbol *symbol_table_lookup(struct symbol_table *t, const char *path,
					 const uint8_t *build_id, size_t build_id_len,
					 uint64_t file_address, uint64_t runtime_address)
{
	if (!path)
		return symbol_table_unknown(t, runtime_address);
	struct elf_module *m = find_module(t, path, build_id, build_id_len);
	if (!m)
		return &out_of_memory;
	struct entry *e = find_entry(t, m, file_address, CALL_FUNCTION);
	if (e)
		return &e->sym;

	struct symbol names = {0};
	int named = function_name(t, m, file_address, &names);
	uint32_t line = 0;
	char path_buf[4096];
	const char *file = elf_module_source(m, file_address, &line, path_buf, sizeof(path_buf));
	const char *module = strpool_intern(t->strings, elf_module_path(m));
	if (file)
		file = strpool_intern(t->strings, file);
	if (named < 0 || !module || !(e = add_entry(t, m, file_address, CALL_FUNCTION)))
		return &out_of_memory;
	e->sym.name = names.name;
	e->sym.short_name = names.short_name;
	e->sym.full_name = names.full_name;
	e->sym.mangled = names.mangled;
	e->sym.module = module;
	e->sym.file = file;
	e->sym.line = file ? line : 0;
	e->sym.address = runtime_address;
	e->sym.file_address = file_address;
	return &e->sym;
}

const struct symbol *symbol_table_unknown(struct symbol_table *t, uint64_t runtime_address)
{
	struct entry *e = find_entry(t, NULL, runtime_address, CALL_FUNCTION);
	if (e)
		return &e->sym;
	char buf[32];
	snprintf(buf, sizeof(buf), "0x%" PRIx64, runtime_address);
	const char *name = strpool_intern(t->strings, buf);
	if (!name || !(e = add_entry(t, NULL, runtime_address, CALL_FUNCTION)))
		return &out_of_memory;
	e->sym.name = name;
	e->sym.module = "?";
	e->sym.address = runtime_address;
	return &e->sym;
}

/* ---- calls of other kinds ------------------------------------------------ */

const char *symbol_table_got_slot(struct symbol_table *t, const char *path, const uint8_t *build_id,
				  size_t build_id_len, uint64_t file_address, const char **version)
{
	*version = NULL;
	struct elf_module *m = path ? find_module(t, path, build_id, build_id_len) : NULL;
	const struct got_slot *slot = m ? elf_module_got_slot(m, file_address) : NULL;
	if (!slot)
		return NULL;
	*version = slot->version;
	return slot->name;
}

int symbol_table_defines(struct symbol_table *t, const char *path, const uint8_t *build_id,
			 size_t build_id_len, const char *name)
{
	struct elf_module *m = path ? find_module(t, path, build_id, build_id_len) : NULL;
	return m && elf_module_defines(m, name);
}

const char *symbol_table_exported_at(struct symbol_table *t, const char *path,
				     const uint8_t *build_id, size_t build_id_len,
				     uint64_t file_address)
{
	struct elf_module *m = path ? find_module(t, path, build_id, build_id_len) : NULL;
	return m ? elf_module_exported_at(m, file_address) : NULL;
}

const struct symbol *symbol_table_library(struct symbol_table *t, const char *name,
					  const char *version, const char *module, uint64_t where)
{
	struct symbol names = {0};
	int named = intern_names(t, name, &names);
	const char *key_name = names.full_name; /* overloads apart */
	const char *key_module = strpool_intern(t->strings, module ? module : "?");
	if (named < 0 || !key_module)
		return &out_of_memory;
	struct entry *e = find_entry(t, key_module, (uint64_t)(uintptr_t)key_name, CALL_LIBRARY);
	if (e)
		return &e->sym;
	if (version && !(version = strpool_intern(t->strings, version)))
		return &out_of_memory;
	if (!(e = add_entry(t, key_module, (uint64_t)(uintptr_t)key_name, CALL_LIBRARY)))
		return &out_of_memory;
	e->sym.name = names.name;
	e->sym.short_name = names.short_name;
	e->sym.full_name = names.full_name;
	e->sym.mangled = names.mangled;
	e->sym.version = version;
	e->sym.module = key_module;
	e->sym.address = where;
	e->sym.proto = prototype_of_function(key_name);
	return &e->sym;
}

/* The name of a call the kernel saw into buf, and its prototype. */
static const char *kernel_side_name(unsigned kind, uint32_t machine, uint64_t where, char *buf,
				    size_t len, const struct prototype **proto)
{
	*proto = NULL;
	switch (kind) {
	case CALL_SYSCALL:
		/* Traces written before the header said its machine are x86-64's. */
		return syscall_name(machine ? machine : EM_X86_64, where, proto);
	case CALL_OFFCPU:
		if (where == OFFCPU_PREEMPTED)
			return "off-cpu:preempted";
		if (where == OFFCPU_BLOCKED)
			return "off-cpu:blocked";
		snprintf(buf, len, "off-cpu:%" PRIu64, where);
		return buf;
	}
	/* A kernel function: its address has bits 60..63 set. */
	snprintf(buf, len, "0x%" PRIx64, (uint64_t)(where | ~TRACE_WHERE_MASK));
	return buf;
}

const struct symbol *symbol_table_kernel_side(struct symbol_table *t, unsigned kind,
					      uint32_t machine, uint64_t where)
{
	struct entry *e = find_entry(t, NULL, where, kind);
	if (e)
		return &e->sym;
	char buf[48];
	const struct prototype *proto;
	const char *name = kernel_side_name(kind, machine, where, buf, sizeof(buf), &proto);
	if (!name || !(name = strpool_intern(t->strings, name)) ||
	    !(e = add_entry(t, NULL, where, kind)))
		return &out_of_memory;
	e->sym.name = name;
	e->sym.module = KERNEL_MODULE_NAME;
	e->sym.address = where;
	e->sym.proto = proto;
	return &e->sym;
}
