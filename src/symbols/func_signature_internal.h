/*
 * func_signature_internal.h - the pieces of func_signature.c that the
 * files describing types (ctype_dwarf.c) and placing values by the calling
 * convention (signature_abi.c) share.  Private to src/symbols/.
 */
#ifndef CALLTRACE_FUNC_SIGNATURE_INTERNAL_H
#define CALLTRACE_FUNC_SIGNATURE_INTERNAL_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "func_signature.h"
#include "unit_ranges.h"

#define TYPE_DEPTH_MAX 12 /* nesting of types described (malformed DWARF) */

/* --- an arena: everything a table hands out, freed together --- */

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	_Alignas(16) char data[];
};

struct arena {
	struct arena_block *head;
	int failed; /* an allocation failed */
};

/* n zeroed bytes, 16-aligned; NULL (and a->failed) when out of memory. */
void *sig_arena_alloc(struct arena *a, size_t n);
/* A copy of s in the arena ("" when out of memory). */
const char *sig_arena_strdup(struct arena *a, const char *s);

/* --- a map from 64-bit keys to pointers (open addressing) --- */

struct map_slot {
	uint64_t key;
	void *value; /* NULL: empty */
};

struct u64_map {
	struct map_slot *slots;
	size_t count, cap; /* cap: 0 or a power of two */
};

void *sig_map_get(const struct u64_map *m, uint64_t key);
/* Adds a key that is not in the map yet; -1 when out of memory. */
int sig_map_put(struct u64_map *m, uint64_t key, void *value);

/* --- one ELF file, and what describing one signature needs --- */

struct sig_module {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: unreadable */
	Dwarf *dwarf;	  /* NULL: no debug info */
	Dwarf_Addr bias;
	int machine;		   /* its ELF e_machine (EM_NONE: unread) */
	struct u64_map types;	   /* DIE key -> struct ctype */
	struct u64_map signatures; /* address -> signature or &no_signature */
	struct unit_ranges units;  /* when libdw finds no unit (no .debug_aranges) */
};

/* What describing one signature needs. */
struct sig_ctx {
	struct arena *arena;
	struct sig_module *m;
	bool cxx;
};

/* --- small DWARF helpers --- */

bool sig_die_type(Dwarf_Die *die, Dwarf_Die *type);
uint64_t sig_die_udata(Dwarf_Die *die, unsigned name, uint64_t otherwise);
bool sig_die_flag(Dwarf_Die *die, unsigned name);
const char *sig_die_name(Dwarf_Die *die); /* "" when it has none */
/* Tells DIEs of the main and of an alternate (dwz) debug file apart. */
uint64_t sig_die_key(struct sig_module *m, Dwarf_Die *die);
bool sig_is_pointer_tag(int tag);
uint32_t sig_count_children(Dwarf_Die *die, int tag);

/* --- ctype_dwarf.c --- */

/* The descriptor of the type `die` (NULL: void), built once per DIE. */
const struct ctype *sig_type_of(struct sig_ctx *c, Dwarf_Die *die, int depth);

/* --- signature_abi.c --- */

/* Where the calling convention puts each parameter and the result. */
void sig_place_all(struct func_signature *sig, struct func_param *params);
/* The capture plan of the placed signature. */
void sig_build_plan(struct func_signature *sig);

#endif
