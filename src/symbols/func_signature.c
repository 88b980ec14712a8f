/*
 * func_signature.c - function signatures from DWARF: the table of ELF
 * files, finding the function that starts at an address, its parameters
 * and result (func_signature.h).
 *
 * Each ELF file gets its own Dwfl (reported at base 0, so the addresses
 * asked are the file's own), opened on first use.  Type descriptors are
 * built once per DWARF type DIE (ctype_dwarf.c), signatures once per entry
 * address; both live in the table's arena until the table is freed.  Where
 * the values are is signature_abi.c's; the one-line description and the
 * plan's bytes are signature_text.c's.
 */
#include "func_signature_internal.h"

#include <dwarf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- an arena: everything a table hands out, freed together --- */

void *sig_arena_alloc(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		b = malloc(sizeof(*b) + cap);
		if (!b) {
			a->failed = 1;
			return NULL;
		}
		b->used = 0;
		b->cap = cap;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

const char *sig_arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = sig_arena_alloc(a, n);
	if (!copy)
		return "";
	memcpy(copy, s, n);
	return copy;
}

static void arena_free(struct arena *a)
{
	while (a->head) {
		struct arena_block *next = a->head->next;
		free(a->head);
		a->head = next;
	}
}

/* --- a map from 64-bit keys to pointers (open addressing) --- */

static size_t map_hash(uint64_t key, size_t cap)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 32) & (cap - 1);
}

void *sig_map_get(const struct u64_map *m, uint64_t key)
{
	if (m->cap == 0)
		return NULL;
	for (size_t i = map_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->slots[i].value)
			return NULL;
		if (m->slots[i].key == key)
			return m->slots[i].value;
	}
}

static int map_grow(struct u64_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct map_slot *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		if (!m->slots[i].value)
			continue;
		size_t j = map_hash(m->slots[i].key, cap);
		while (slots[j].value)
			j = (j + 1) & (cap - 1);
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

/* Adds a key that is not in the map yet; -1 when out of memory. */
int sig_map_put(struct u64_map *m, uint64_t key, void *value)
{
	if ((m->count + 1) * 2 > m->cap && map_grow(m) < 0)
		return -1;
	size_t i = map_hash(key, m->cap);
	while (m->slots[i].value)
		i = (i + 1) & (m->cap - 1);
	m->slots[i].key = key;
	m->slots[i].value = value;
	m->count++;
	return 0;
}

/* --- modules and the table --- */

struct signature_table {
	struct arena arena;
	struct sig_module **modules;
	size_t nmodules;
};

static const char no_signature = 0; /* a cached "no function here" */

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* The module's file, open at a descriptor the program does not count on:
 * in a traced process (--args) a descriptor the runtime held at 3 would
 * make the program's next open() return 4.  -1 when it cannot be opened
 * (libdw then says so itself). */
static int open_out_of_the_way(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 1000);
	if (high < 0)
		return fd;
	close(fd);
	return high;
}

static void module_open(struct sig_module *m)
{
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	/* dwfl_report_elf takes the descriptor over. */
	m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, open_out_of_the_way(m->path), 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (!m->mod)
		return;
	m->dwarf = dwfl_module_getdwarf(m->mod, &m->bias);
	GElf_Addr elf_bias;
	Elf *elf = dwfl_module_getelf(m->mod, &elf_bias);
	GElf_Ehdr eh;
	if (elf && gelf_getehdr(elf, &eh))
		m->machine = eh.e_machine;
}

static void module_free(struct sig_module *m)
{
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->types.slots);
	free(m->signatures.slots);
	unit_ranges_free(&m->units);
	free(m->path);
	free(m);
}

static struct sig_module *table_module(struct signature_table *t, const char *path)
{
	for (size_t i = 0; i < t->nmodules; i++)
		if (strcmp(t->modules[i]->path, path) == 0)
			return t->modules[i];
	struct sig_module **grown = realloc(t->modules, (t->nmodules + 1) * sizeof(*t->modules));
	if (!grown)
		return NULL;
	t->modules = grown;
	struct sig_module *m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return NULL;
	}
	module_open(m);
	t->modules[t->nmodules++] = m;
	return m;
}

struct signature_table *signature_table_new(void)
{
	return calloc(1, sizeof(struct signature_table));
}

void signature_table_free(struct signature_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nmodules; i++)
		module_free(t->modules[i]);
	free(t->modules);
	arena_free(&t->arena);
	free(t);
}

/* --- small DWARF helpers --- */

bool sig_die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, type);
}

uint64_t sig_die_udata(Dwarf_Die *die, unsigned name, uint64_t otherwise)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &v) != 0)
		return otherwise;
	return v;
}

bool sig_die_flag(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;
	bool v = false;
	return dwarf_attr_integrate(die, name, &attr) && dwarf_formflag(&attr, &v) == 0 && v;
}

const char *sig_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? name : "";
}

/* Tells DIEs of the main and of an alternate (dwz) debug file apart. */
uint64_t sig_die_key(struct sig_module *m, Dwarf_Die *die)
{
	uint64_t alt = dwarf_cu_getdwarf(die->cu) != m->dwarf;
	return dwarf_dieoffset(die) | alt << 62;
}

bool sig_is_pointer_tag(int tag)
{
	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type || tag == DW_TAG_ptr_to_member_type;
}

uint32_t sig_count_children(Dwarf_Die *die, int tag)
{
	uint32_t n = 0;
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do
			n += dwarf_tag(&child) == tag;
		while (dwarf_siblingof(&child, &child) == 0);
	}
	return n;
}

/* --- finding and describing a function --- */

static bool starts_at(Dwarf_Die *fn, Dwarf_Addr pc)
{
	Dwarf_Addr entry, base, start, end;
	if (dwarf_entrypc(fn, &entry) == 0)
		return entry == pc;
	return dwarf_ranges(fn, 0, &base, &start, &end) > 0 && start == pc;
}

/* The DW_TAG_subprogram that starts at `pc` (a DWARF address), among the
 * children of `scope` and of the namespaces and classes in it; with
 * `local`, of the functions and blocks in it too, where GCC puts the
 * classes a function defines and their member functions (a lambda's
 * operator(), a local struct's).  (Not dwarf_getscopes: at an entry that
 * is also an inlined call's first instruction it answers the inlined
 * function.) */
static bool find_function(Dwarf_Die *scope, Dwarf_Addr pc, Dwarf_Die *fn, bool local, int depth)
{
	Dwarf_Die child;
	if (depth > TYPE_DEPTH_MAX || dwarf_child(scope, &child) != 0)
		return false;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			if (starts_at(&child, pc)) {
				*fn = child;
				return true;
			}
			if (local && find_function(&child, pc, fn, local, depth + 1))
				return true;
			break;
		case DW_TAG_lexical_block:
			if (local && find_function(&child, pc, fn, local, depth + 1))
				return true;
			break;
		case DW_TAG_namespace:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			if (find_function(&child, pc, fn, local, depth + 1))
				return true;
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* GCC's clones (f.isra.0, f.constprop.0, f.part.0) have a calling
 * convention of their own; their DWARF still shows the original's. */
static bool is_compiler_clone(struct sig_module *m, uint64_t address, Dwarf_Die *fn)
{
	if (sig_die_udata(fn, DW_AT_calling_convention, DW_CC_normal) == DW_CC_nocall)
		return true;
	GElf_Off off = 0;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(m->mod, address, &off, &sym, NULL, NULL, NULL);
	return name && off == 0 && strchr(name, '.') != NULL;
}

/* The parameters are the abstract function's when this is a concrete copy
 * of it (declaration order, names and types there). */
static void parameter_owner(Dwarf_Die *fn, Dwarf_Die *owner)
{
	Dwarf_Attribute attr;
	*owner = *fn;
	if (dwarf_attr(fn, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, owner))
		return;
	*owner = *fn;
}

/* A parameter's or result's type (`die`); a reference's with the type it
 * refers to, whose object is read at the call.  (A copy of the reference's
 * descriptor: the references of members are not followed.) */
static const struct ctype *value_type(struct sig_ctx *c, Dwarf_Die *die)
{
	const struct ctype *t = sig_type_of(c, die, 0);
	Dwarf_Die core, target;
	if (!t->is_reference || dwarf_peel_type(die, &core) != 0 || !sig_die_type(&core, &target))
		return t;
	struct ctype *copy = sig_arena_alloc(c->arena, sizeof(*copy));
	if (!copy)
		return t;
	*copy = *t;
	copy->element = sig_type_of(c, &target, 1);
	return copy;
}

/* Whether the concrete copy `fn` takes the abstract parameter `param`: a
 * constructor's or destructor's copies do not all take its artificial
 * ones (GCC's __in_chrg, __vtt_parm); a copy that lists parameters lists
 * those it takes. */
static bool copy_takes(Dwarf_Die *fn, Dwarf_Die *param)
{
	Dwarf_Die child, origin;
	Dwarf_Attribute attr;
	bool lists = false;
	if (dwarf_child(fn, &child) != 0)
		return true;
	do {
		if (dwarf_tag(&child) != DW_TAG_formal_parameter)
			continue;
		lists = true;
		if (dwarf_attr(&child, DW_AT_abstract_origin, &attr) &&
		    dwarf_formref_die(&attr, &origin) &&
		    dwarf_dieoffset(&origin) == dwarf_dieoffset(param))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return !lists;
}

static uint32_t read_params(struct sig_ctx *c, Dwarf_Die *fn, Dwarf_Die *owner,
			    struct func_signature *sig, struct func_param *params, uint32_t max)
{
	uint32_t n = 0;
	Dwarf_Die child, type;
	if (dwarf_child(owner, &child) != 0)
		return 0;
	bool a_copy = dwarf_dieoffset(fn) != dwarf_dieoffset(owner);
	do {
		if (dwarf_tag(&child) == DW_TAG_unspecified_parameters)
			sig->variadic = true;
		if (dwarf_tag(&child) != DW_TAG_formal_parameter || n >= max)
			continue;
		bool artificial = sig_die_flag(&child, DW_AT_artificial);
		if (artificial && a_copy && !copy_takes(fn, &child))
			continue;
		struct func_param *p = &params[n++];
		p->name = sig_arena_strdup(c->arena, sig_die_name(&child));
		p->artificial = artificial;
		bool typed = sig_die_type(&child, &type);
		/* `this` is shown as Foo *, not Foo *const */
		if (typed && p->artificial && dwarf_tag(&type) == DW_TAG_const_type)
			typed = sig_die_type(&type, &type);
		p->type = typed ? value_type(c, &type) : sig_type_of(c, NULL, 0);
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

static struct func_signature *describe_function(struct sig_ctx *c, Dwarf_Die *cu, Dwarf_Die *fn,
						uint64_t address)
{
	struct func_signature *sig = sig_arena_alloc(c->arena, sizeof(*sig));
	if (!sig)
		return NULL;
	Dwarf_Die owner, type;
	parameter_owner(fn, &owner);
	int lang = dwarf_srclang(cu);
	c->cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		 lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 || lang == 0x2a ||
		 lang == 0x2b; /* C++17, C++20 (DWARF 6 numbers) */
	sig->name = sig_arena_strdup(c->arena, sig_die_name(fn));
	sig->address = address;
	sig->abi_known = !is_compiler_clone(c->m, address, fn);
	sig->return_type = sig_die_type(fn, &type) ? value_type(c, &type) : sig_type_of(c, NULL, 0);
	uint32_t max = sig_count_children(&owner, DW_TAG_formal_parameter);
	struct func_param *params = sig_arena_alloc(c->arena, (max ? max : 1) * sizeof(*params));
	if (!params)
		return NULL;
	sig->nparams = read_params(c, fn, &owner, sig, params, max);
	sig->params = params;
	sig_place_all(sig, params);
	sig_build_plan(sig);
	return c->arena->failed ? NULL : sig;
}

static const struct func_signature *lookup_uncached(struct signature_table *t, struct sig_module *m,
						    uint64_t address)
{
	if (!m->dwarf)
		return NULL;
	Dwarf_Addr bias = m->bias;
	Dwarf_Die *found = dwfl_module_addrdie(m->mod, address, &bias), cu;
	if (found)
		cu = *found;
	else if (!unit_ranges_find(&m->units, m->dwarf, address - bias, &cu))
		return NULL;
	Dwarf_Die fn;
	/* the functions' own children only when no other has the address */
	if (!find_function(&cu, address - bias, &fn, false, 0) &&
	    !find_function(&cu, address - bias, &fn, true, 0))
		return NULL;
	struct sig_ctx c = {.arena = &t->arena, .m = m};
	return describe_function(&c, &cu, &fn, address);
}

const struct func_signature *signature_table_lookup(struct signature_table *t, const char *path,
						    uint64_t file_address)
{
	struct sig_module *m = table_module(t, path);
	if (!m || !m->mod)
		return NULL;
	const void *known = sig_map_get(&m->signatures, file_address);
	if (known)
		return known == &no_signature ? NULL : known;
	const struct func_signature *sig = lookup_uncached(t, m, file_address);
	sig_map_put(&m->signatures, file_address, sig ? (void *)sig : (void *)&no_signature);
	return sig;
}
