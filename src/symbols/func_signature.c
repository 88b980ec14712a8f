/*
 * func_signature.c - function signatures from DWARF and where the x86-64
 * System V calling convention puts each argument and the return value.
 *
 * Each ELF file gets its own Dwfl (reported at base 0, so the addresses
 * asked are the file's own), opened on first use.  Type descriptors are
 * built once per DWARF type DIE, signatures once per entry address; both
 * live in the table's arena until the table is freed.
 *
 * What the ABI classification follows (System V x86-64 psABI 3.2.3):
 * scalars are INTEGER or SSE; aggregates up to 16 bytes are classified by
 * eightbyte, bigger or packed ones go in memory; long double is X87 (memory
 * as an argument, st(0) as a result); an argument that does not find all
 * its registers goes whole on the stack; a result in memory makes rdi a
 * hidden first argument and comes back in rax.  C++ classes that are not
 * trivially copyable are passed and returned by a hidden pointer.
 */
#include "func_signature.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TYPE_DEPTH_MAX 12 /* nesting of types described (malformed DWARF) */
#define TEXT_MAX 512	  /* longest type text */

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

static void *arena_alloc(struct arena *a, size_t n)
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

static const char *arena_strdup(struct arena *a, const char *s)
{
	size_t n = strlen(s) + 1;
	char *copy = arena_alloc(a, n);
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

struct map_slot {
	uint64_t key;
	void *value; /* NULL: empty */
};

struct u64_map {
	struct map_slot *slots;
	size_t count, cap; /* cap: 0 or a power of two */
};

static size_t map_hash(uint64_t key, size_t cap)
{
	key *= 0x9e3779b97f4a7c15ull;
	return (size_t)(key >> 32) & (cap - 1);
}

static void *map_get(const struct u64_map *m, uint64_t key)
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
static int map_put(struct u64_map *m, uint64_t key, void *value)
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

struct sig_module {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: unreadable */
	Dwarf *dwarf;	  /* NULL: no debug info */
	Dwarf_Addr bias;
	struct u64_map types;	   /* DIE key -> struct ctype */
	struct u64_map signatures; /* address -> signature or &no_signature */
};

struct signature_table {
	struct arena arena;
	struct sig_module **modules;
	size_t nmodules;
};

static const char no_signature = 0; /* a cached "no function here" */

static const struct ctype void_type = {.kind = CTYPE_VOID, .align = 1, .text = "void"};
static const struct ctype unknown_type = {.kind = CTYPE_UNKNOWN, .align = 1, .text = "?"};

/* What describing one signature needs. */
struct sig_ctx {
	struct arena *arena;
	struct sig_module *m;
	bool cxx;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void module_open(struct sig_module *m)
{
	m->dwfl = dwfl_begin(&offline_callbacks);
	if (!m->dwfl)
		return;
	dwfl_report_begin(m->dwfl);
	m->mod = dwfl_report_elf(m->dwfl, m->path, m->path, -1, 0, true);
	dwfl_report_end(m->dwfl, NULL, NULL);
	if (m->mod)
		m->dwarf = dwfl_module_getdwarf(m->mod, &m->bias);
}

static void module_free(struct sig_module *m)
{
	if (m->dwfl)
		dwfl_end(m->dwfl);
	free(m->types.slots);
	free(m->signatures.slots);
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

static bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	return dwarf_attr_integrate(die, DW_AT_type, &attr) && dwarf_formref_die(&attr, type);
}

static uint64_t die_udata(Dwarf_Die *die, unsigned name, uint64_t otherwise)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	if (!dwarf_attr_integrate(die, name, &attr) || dwarf_formudata(&attr, &v) != 0)
		return otherwise;
	return v;
}

static bool die_flag(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute attr;
	bool v = false;
	return dwarf_attr_integrate(die, name, &attr) && dwarf_formflag(&attr, &v) == 0 && v;
}

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	return name ? name : "";
}

/* Tells DIEs of the main and of an alternate (dwz) debug file apart. */
static uint64_t die_key(struct sig_module *m, Dwarf_Die *die)
{
	uint64_t alt = dwarf_cu_getdwarf(die->cu) != m->dwarf;
	return dwarf_dieoffset(die) | alt << 62;
}

static bool is_pointer_tag(int tag)
{
	return tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
	       tag == DW_TAG_rvalue_reference_type || tag == DW_TAG_ptr_to_member_type;
}

/* --- type text, as C declarations are written --- */

static void type_text(struct sig_ctx *c, Dwarf_Die *die, const char *decl, char *out, size_t len,
		      int depth);

/* snprintf that may cut: type texts longer than TEXT_MAX end cut. */
static int text_printf(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int text_printf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : n;
}

/* "name" followed by the declarator, if any. */
static void join_text(const char *name, const char *decl, char *out, size_t len)
{
	text_printf(out, len, "%s%s%s", name, *decl ? " " : "", decl);
}

static const char *tag_keyword(int tag)
{
	switch (tag) {
	case DW_TAG_structure_type:
		return "struct";
	case DW_TAG_class_type:
		return "class";
	case DW_TAG_union_type:
		return "union";
	case DW_TAG_enumeration_type:
		return "enum";
	}
	return NULL;
}

static void named_text(struct sig_ctx *c, Dwarf_Die *die, const char *decl, char *out, size_t len)
{
	const char *name = die_name(die);
	const char *keyword = tag_keyword(dwarf_tag(die));
	char buf[TEXT_MAX];
	if (keyword && !*name)
		text_printf(buf, sizeof(buf), "%s {...}", keyword);
	else if (keyword && !c->cxx)
		text_printf(buf, sizeof(buf), "%s %s", keyword, name);
	else
		text_printf(buf, sizeof(buf), "%s", *name ? name : "?");
	join_text(buf, decl, out, len);
}

static void qualified_text(struct sig_ctx *c, Dwarf_Die *die, const char *decl, char *out,
			   size_t len, int depth)
{
	const char *qual = "const";
	if (dwarf_tag(die) == DW_TAG_volatile_type)
		qual = "volatile";
	else if (dwarf_tag(die) == DW_TAG_restrict_type)
		qual = c->cxx ? "__restrict" : "restrict";
	else if (dwarf_tag(die) == DW_TAG_atomic_type)
		qual = "_Atomic";
	Dwarf_Die target;
	bool has = die_type(die, &target);
	char buf[TEXT_MAX];
	if (has && is_pointer_tag(dwarf_tag(&target))) {
		join_text(qual, decl, buf, sizeof(buf)); /* char *const p */
		type_text(c, &target, buf, out, len, depth + 1);
		return;
	}
	type_text(c, has ? &target : NULL, decl, buf, sizeof(buf), depth + 1);
	text_printf(out, len, "%s %s", qual, buf);
}

static void array_text(struct sig_ctx *c, Dwarf_Die *die, const char *decl, char *out, size_t len,
		       int depth)
{
	char buf[TEXT_MAX];
	int n = text_printf(buf, sizeof(buf), *decl == '*' || *decl == '&' ? "(%s)" : "%s", decl);
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_subrange_type || n >= (int)sizeof(buf))
				continue;
			Dwarf_Word count;
			if (dwarf_hasattr(&child, DW_AT_count) ||
			    dwarf_hasattr(&child, DW_AT_upper_bound))
				count = die_udata(&child, DW_AT_count,
						  die_udata(&child, DW_AT_upper_bound, 0) + 1);
			else
				count = 0;
			n += text_printf(buf + n, sizeof(buf) - (size_t)n, count ? "[%llu]" : "[]",
					 (unsigned long long)count);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	Dwarf_Die elem;
	type_text(c, die_type(die, &elem) ? &elem : NULL, buf, out, len, depth + 1);
}

static void function_text(struct sig_ctx *c, Dwarf_Die *die, const char *decl, char *out,
			  size_t len, int depth)
{
	char buf[TEXT_MAX], param[TEXT_MAX];
	int n = text_printf(buf, sizeof(buf), *decl ? "(%s)(" : "(", decl);
	int params = 0;
	Dwarf_Die child;
	if (dwarf_child(die, &child) == 0) {
		do {
			Dwarf_Die type;
			const char *text = NULL;
			if (dwarf_tag(&child) == DW_TAG_formal_parameter) {
				type_text(c, die_type(&child, &type) ? &type : NULL, "", param,
					  sizeof(param), depth + 1);
				text = param;
			} else if (dwarf_tag(&child) == DW_TAG_unspecified_parameters) {
				text = "...";
			}
			if (text && n < (int)sizeof(buf))
				n += text_printf(buf + n, sizeof(buf) - (size_t)n, "%s%s",
						 params++ ? ", " : "", text);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	if (n < (int)sizeof(buf))
		text_printf(buf + n, sizeof(buf) - (size_t)n, "%s)",
			    params == 0 && die_flag(die, DW_AT_prototyped) && !c->cxx ? "void"
										      : "");
	Dwarf_Die ret;
	type_text(c, die_type(die, &ret) ? &ret : NULL, buf, out, len, depth + 1);
}

/* The type `die` (NULL: void) declaring `decl` ("" for the bare type). */
static void type_text(struct sig_ctx *c, Dwarf_Die *die, const char *decl, char *out, size_t len,
		      int depth)
{
	if (!die || depth > TYPE_DEPTH_MAX) {
		join_text(die ? "?" : "void", decl, out, len);
		return;
	}
	char buf[TEXT_MAX];
	Dwarf_Die target;
	bool has = die_type(die, &target);
	switch (dwarf_tag(die)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		const char *op = dwarf_tag(die) == DW_TAG_pointer_type	   ? "*"
				 : dwarf_tag(die) == DW_TAG_reference_type ? "&"
									   : "&&";
		text_printf(buf, sizeof(buf), "%s%s", op, decl);
		type_text(c, has ? &target : NULL, buf, out, len, depth + 1);
		return;
	}
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
		qualified_text(c, die, decl, out, len, depth);
		return;
	case DW_TAG_array_type:
		array_text(c, die, decl, out, len, depth);
		return;
	case DW_TAG_subroutine_type:
		function_text(c, die, decl, out, len, depth);
		return;
	default:
		named_text(c, die, decl, out, len);
	}
}

/* --- type descriptors --- */

static const struct ctype *type_of(struct sig_ctx *c, Dwarf_Die *die, int depth);

static void describe_base(struct ctype *t, Dwarf_Die *core)
{
	uint64_t encoding = die_udata(core, DW_AT_encoding, 0);
	t->kind = CTYPE_UNKNOWN;
	t->align = t->size > 16 ? 16 : t->size ? t->size : 1;
	switch (encoding) {
	case DW_ATE_boolean:
		t->kind = CTYPE_BOOL;
		break;
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		t->kind = t->size == 1 ? CTYPE_CHAR : CTYPE_INT;
		t->is_signed = encoding == DW_ATE_signed_char;
		break;
	case DW_ATE_UTF:
		t->kind = t->size == 1 ? CTYPE_CHAR : CTYPE_INT;
		break;
	case DW_ATE_signed:
	case DW_ATE_unsigned:
		t->kind = CTYPE_INT;
		t->is_signed = encoding == DW_ATE_signed;
		break;
	case DW_ATE_float:
		if (t->size == 4 || t->size == 8 || t->size == 16)
			t->kind = CTYPE_FLOAT;
		break;
	case DW_ATE_complex_float:
		if (t->size == 8 || t->size == 16 || t->size == 32) {
			t->kind = CTYPE_COMPLEX;
			t->align = t->size / 2 > 16 ? 16 : t->size / 2;
		}
		break;
	}
}

/* An enumerator's DW_AT_const_value, sign-extended from its form's width
 * when the enum is signed. */
static uint64_t enumerator_value(Dwarf_Die *e, bool is_signed)
{
	Dwarf_Attribute attr;
	if (!dwarf_attr(e, DW_AT_const_value, &attr))
		return 0;
	Dwarf_Word u = 0;
	Dwarf_Sword s = 0;
	switch (dwarf_whatform(&attr)) {
	case DW_FORM_sdata:
		return dwarf_formsdata(&attr, &s) == 0 ? (uint64_t)s : 0;
	case DW_FORM_data1:
		dwarf_formudata(&attr, &u);
		return is_signed ? (uint64_t)(int64_t)(int8_t)u : u;
	case DW_FORM_data2:
		dwarf_formudata(&attr, &u);
		return is_signed ? (uint64_t)(int64_t)(int16_t)u : u;
	case DW_FORM_data4:
		dwarf_formudata(&attr, &u);
		return is_signed ? (uint64_t)(int64_t)(int32_t)u : u;
	default:
		dwarf_formudata(&attr, &u);
		return u;
	}
}

static uint32_t count_children(Dwarf_Die *die, int tag)
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

static void describe_enum(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core)
{
	t->kind = CTYPE_ENUM;
	t->align = t->size ? t->size : 1;
	Dwarf_Die base;
	if (die_type(core, &base) && dwarf_peel_type(&base, &base) == 0)
		t->is_signed = die_udata(&base, DW_AT_encoding, 0) == DW_ATE_signed;
	uint32_t n = count_children(core, DW_TAG_enumerator);
	struct ctype_enumerator *list = arena_alloc(c->arena, (n ? n : 1) * sizeof(*list));
	if (!list)
		return;
	Dwarf_Die child;
	uint32_t i = 0;
	if (dwarf_child(core, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_enumerator || i >= n)
				continue;
			list[i].name = arena_strdup(c->arena, die_name(&child));
			list[i++].value = enumerator_value(&child, t->is_signed);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	t->enumerators = list;
	t->n_enumerators = i;
}

static void describe_pointer(struct ctype *t, Dwarf_Die *core)
{
	t->kind = CTYPE_POINTER;
	t->is_reference = dwarf_tag(core) == DW_TAG_reference_type ||
			  dwarf_tag(core) == DW_TAG_rvalue_reference_type;
	if (t->size == 0)
		t->size = 8;
	t->align = 8;
	if (dwarf_tag(core) == DW_TAG_ptr_to_member_type) {
		t->kind = CTYPE_INT; /* an offset, or {function, adjustment} */
		return;
	}
	Dwarf_Die target;
	if (dwarf_tag(core) != DW_TAG_pointer_type || !die_type(core, &target) ||
	    dwarf_peel_type(&target, &target) != 0 || dwarf_tag(&target) != DW_TAG_base_type)
		return;
	uint64_t encoding = die_udata(&target, DW_AT_encoding, 0);
	if (die_udata(&target, DW_AT_byte_size, 0) == 1 &&
	    (encoding == DW_ATE_signed_char || encoding == DW_ATE_unsigned_char ||
	     encoding == DW_ATE_UTF))
		t->kind = CTYPE_STRING;
}

/* A bitfield's position: legacy DW_AT_bit_offset counts from the top of a
 * DW_AT_byte_size storage unit, DW_AT_data_bit_offset from the start. */
static uint64_t member_bit_position(Dwarf_Die *member, uint64_t byte_offset, uint64_t bits)
{
	if (dwarf_hasattr(member, DW_AT_data_bit_offset))
		return die_udata(member, DW_AT_data_bit_offset, 0);
	uint64_t storage = die_udata(member, DW_AT_byte_size, 0);
	uint64_t from_top = die_udata(member, DW_AT_bit_offset, 0);
	return byte_offset * 8 + storage * 8 - from_top - bits;
}

/* Fills one member; false when it is not a data member with a constant
 * place (static members, virtual bases). */
static bool describe_member(struct sig_ctx *c, Dwarf_Die *d, struct ctype_member *out, int depth)
{
	if (die_flag(d, DW_AT_declaration) || die_flag(d, DW_AT_external))
		return false;
	uint64_t offset = 0;
	Dwarf_Attribute attr;
	Dwarf_Word w;
	if (dwarf_attr(d, DW_AT_data_member_location, &attr)) {
		if (dwarf_formudata(&attr, &w) != 0)
			return false;
		offset = w;
	}
	Dwarf_Die type;
	out->type = type_of(c, die_type(d, &type) ? &type : NULL, depth + 1);
	if (dwarf_tag(d) == DW_TAG_inheritance)
		out->name = out->type->text;
	else
		out->name = arena_strdup(c->arena, die_name(d));
	uint64_t bits = die_udata(d, DW_AT_bit_size, 0);
	if (bits) {
		uint64_t pos = member_bit_position(d, offset, bits);
		offset = pos / 8;
		out->bit_offset = (uint16_t)(pos % 8);
		out->bit_size = bits > 64 ? 64 : (uint16_t)bits;
	}
	out->offset = offset > UINT32_MAX ? UINT32_MAX : (uint32_t)offset;
	return true;
}

/* Whether a C++ member function makes its class non-trivial for calls: a
 * user-provided destructor, copy or move constructor, or anything virtual. */
static bool makes_nontrivial(Dwarf_Die *fn, Dwarf_Die *class_die)
{
	if (die_udata(fn, DW_AT_virtuality, 0) != 0)
		return true;
	if (die_flag(fn, DW_AT_artificial) || die_udata(fn, DW_AT_defaulted, 0) == 1)
		return false;
	const char *name = die_name(fn), *class_name = die_name(class_die);
	if (name[0] == '~')
		return true;
	/* a constructor is named as its class without template arguments:
	 * C for C<int> */
	size_t plain = strcspn(class_name, "<");
	if (plain == 0 || strlen(name) != plain || strncmp(name, class_name, plain) != 0)
		return false;
	Dwarf_Die p, ref, target;
	if (dwarf_child(fn, &p) != 0)
		return false;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || die_flag(&p, DW_AT_artificial))
			continue;
		/* the first real parameter: X(const X &) or X(X &&) */
		if (!die_type(&p, &ref) || !is_pointer_tag(dwarf_tag(&ref)) ||
		    dwarf_tag(&ref) == DW_TAG_pointer_type || !die_type(&ref, &target) ||
		    dwarf_peel_type(&target, &target) != 0)
			return false;
		return strcmp(die_name(&target), class_name) == 0;
	} while (dwarf_siblingof(&p, &p) == 0);
	return false;
}

static bool class_by_reference(struct sig_ctx *c, Dwarf_Die *core)
{
	uint64_t cc = die_udata(core, DW_AT_calling_convention, 0);
	if (cc == DW_CC_pass_by_reference)
		return true;
	if (cc == DW_CC_pass_by_value || !c->cxx)
		return false;
	Dwarf_Die child;
	if (dwarf_child(core, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subprogram &&
			    makes_nontrivial(&child, core))
				return true;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return false;
}

static void describe_members(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core, int depth)
{
	uint32_t n = count_children(core, DW_TAG_member) + count_children(core, DW_TAG_inheritance);
	struct ctype_member *list = arena_alloc(c->arena, (n ? n : 1) * sizeof(*list));
	if (!list)
		return;
	uint32_t i = 0, align = 1;
	Dwarf_Die child;
	if (dwarf_child(core, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);
			if ((tag != DW_TAG_member && tag != DW_TAG_inheritance) || i >= n ||
			    !describe_member(c, &child, &list[i], depth))
				continue;
			const struct ctype *mt = list[i].type;
			t->by_reference |= mt->by_reference;
			t->unaligned |= mt->unaligned ||
					(list[i].bit_size == 0 && list[i].offset % mt->align != 0);
			if (mt->align > align)
				align = mt->align;
			i++;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	t->members = list;
	t->n_members = i;
	t->align = (uint32_t)die_udata(core, DW_AT_alignment, align);
	if (t->align == 0)
		t->align = 1;
}

static void describe_struct(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core, int depth)
{
	if (die_flag(core, DW_AT_declaration)) {
		t->kind = CTYPE_UNKNOWN; /* incomplete */
		return;
	}
	t->kind = dwarf_tag(core) == DW_TAG_union_type ? CTYPE_UNION : CTYPE_STRUCT;
	describe_members(c, t, core, depth);
	t->by_reference |= class_by_reference(c, core);
}

/* An array type: its first dimension's count of the rest. */
static void describe_array(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core, int depth)
{
	Dwarf_Die elem, child;
	const struct ctype *e = type_of(c, die_type(core, &elem) ? &elem : NULL, depth + 1);
	uint64_t counts[8];
	int dims = 0;
	if (dwarf_child(core, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subrange_type && dims < 8)
				counts[dims++] = die_udata(
				    &child, DW_AT_count,
				    die_udata(&child, DW_AT_upper_bound, (uint64_t)-1) + 1);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	/* inner dimensions become arrays of their own, innermost first */
	for (int d = dims - 1; d > 0; d--) {
		struct ctype *inner = arena_alloc(c->arena, sizeof(*inner));
		if (!inner)
			return;
		*inner = (struct ctype){.kind = CTYPE_ARRAY,
					.element = e,
					.text = "[]",
					.count = (uint32_t)counts[d],
					.align = e->align,
					.size = (uint32_t)(counts[d] * e->size)};
		e = inner;
	}
	t->kind = die_flag(core, DW_AT_GNU_vector) ? CTYPE_UNKNOWN : CTYPE_ARRAY;
	t->element = e;
	t->count = dims ? (uint32_t)counts[0] : 0;
	t->align = e->align;
	t->unaligned = e->unaligned;
	if (t->size == 0)
		t->size = (uint32_t)(t->count * e->size);
}

static void describe_core(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core, int depth)
{
	t->size = (uint32_t)die_udata(core, DW_AT_byte_size, 0);
	t->align = 1;
	switch (dwarf_tag(core)) {
	case DW_TAG_base_type:
		describe_base(t, core);
		break;
	case DW_TAG_enumeration_type:
		describe_enum(c, t, core);
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		describe_pointer(t, core);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		describe_struct(c, t, core, depth);
		break;
	case DW_TAG_array_type:
		describe_array(c, t, core, depth);
		break;
	case DW_TAG_unspecified_type: /* decltype(nullptr) */
		if (t->size == 8)
			describe_pointer(t, core);
		break;
	default:
		t->kind = CTYPE_UNKNOWN;
	}
}

/* The descriptor of the type `die` (NULL: void), built once per DIE.  The
 * text is the DIE's own (a typedef keeps its name); the rest is the type's
 * after typedefs and qualifiers. */
static const struct ctype *type_of(struct sig_ctx *c, Dwarf_Die *die, int depth)
{
	if (!die)
		return &void_type;
	if (depth > TYPE_DEPTH_MAX)
		return &unknown_type;
	uint64_t key = die_key(c->m, die);
	const struct ctype *known = map_get(&c->m->types, key);
	if (known)
		return known;
	struct ctype *t = arena_alloc(c->arena, sizeof(*t));
	if (!t)
		return &unknown_type;
	char text[TEXT_MAX];
	type_text(c, die, "", text, sizeof(text), 0);
	t->text = arena_strdup(c->arena, text);
	Dwarf_Die core;
	int peeled = dwarf_peel_type(die, &core);
	if (peeled == 1)
		t->kind = CTYPE_VOID; /* const void, typedef void T */
	else if (peeled != 0 || dwarf_tag(&core) == DW_TAG_subroutine_type)
		t->kind = CTYPE_UNKNOWN, t->align = 1;
	else
		describe_core(c, t, &core, depth);
	if (map_put(&c->m->types, key, t) < 0)
		c->arena->failed = 1;
	return t;
}

/* --- the calling convention --- */

enum abi_class { CLS_NONE, CLS_INTEGER, CLS_SSE, CLS_X87, CLS_MEMORY };

enum arg_pass {
	PASS_NONE,	/* nothing to pass (void, an empty class) */
	PASS_REGS,	/* eightbytes in registers, if there are enough */
	PASS_MEMORY,	/* on the stack (arguments) or via a hidden pointer (results) */
	PASS_X87,	/* long double: stack as an argument, st(0) as a result */
	PASS_REFERENCE, /* C++ non-trivial class: a pointer to it */
	PASS_VECTOR,	/* a vector type: one xmm register, not read here */
	PASS_UNKNOWN,	/* an incomplete type: where it goes is not known here */
};

static enum abi_class merge_class(enum abi_class a, enum abi_class b)
{
	if (a == b || b == CLS_NONE)
		return a;
	if (a == CLS_NONE)
		return b;
	if (a == CLS_MEMORY || b == CLS_MEMORY)
		return CLS_MEMORY;
	if (a == CLS_INTEGER || b == CLS_INTEGER)
		return CLS_INTEGER;
	if (a == CLS_X87 || b == CLS_X87)
		return CLS_MEMORY;
	return CLS_SSE;
}

/* Merges class c into the eightbytes that bytes [from, to) touch. */
static void mark(enum abi_class cls[2], uint64_t from, uint64_t to, enum abi_class c)
{
	for (uint64_t eb = from / 8; eb <= (to - 1) / 8; eb++) {
		if (eb >= 2) {
			cls[0] = cls[1] = CLS_MEMORY;
			return;
		}
		cls[eb] = merge_class(cls[eb], c);
	}
}

/* Classifies the eightbytes of a value of type t placed at `offset`. */
static void classify_at(const struct ctype *t, uint64_t offset, enum abi_class cls[2], int depth)
{
	if (t->size == 0)
		return;
	uint64_t end = offset + t->size;
	if (depth > TYPE_DEPTH_MAX || t->kind == CTYPE_UNKNOWN) {
		mark(cls, offset, end, CLS_MEMORY);
		return;
	}
	switch (t->kind) {
	case CTYPE_FLOAT:
		mark(cls, offset, end, t->size == 16 ? CLS_X87 : CLS_SSE);
		return;
	case CTYPE_COMPLEX:
		mark(cls, offset, end, t->size == 32 ? CLS_X87 : CLS_SSE);
		return;
	case CTYPE_STRUCT:
	case CTYPE_UNION:
		for (uint32_t i = 0; i < t->n_members; i++) {
			const struct ctype_member *m = &t->members[i];
			uint64_t at = offset + m->offset;
			if (m->bit_size)
				mark(cls, at, at + (m->bit_offset + m->bit_size + 7) / 8,
				     CLS_INTEGER);
			else
				classify_at(m->type, at, cls, depth + 1);
		}
		return;
	case CTYPE_ARRAY:
		for (uint32_t i = 0; i < t->count && i < 16; i++)
			classify_at(t->element, offset + (uint64_t)i * t->element->size, cls,
				    depth + 1);
		return;
	default:
		mark(cls, offset, end, CLS_INTEGER);
	}
}

static enum arg_pass classify(const struct ctype *t, enum abi_class cls[2])
{
	cls[0] = cls[1] = CLS_NONE;
	if (t->kind == CTYPE_VOID)
		return PASS_NONE;
	if (t->by_reference)
		return PASS_REFERENCE;
	if ((t->kind == CTYPE_FLOAT && t->size == 16) ||
	    (t->kind == CTYPE_COMPLEX && t->size == 32))
		return PASS_X87;
	if (t->kind == CTYPE_UNKNOWN && t->size > 0 && t->size <= 16)
		return PASS_VECTOR;
	if (t->kind == CTYPE_UNKNOWN && t->size == 0)
		return PASS_UNKNOWN;
	if (t->size > 16 || t->unaligned)
		return PASS_MEMORY;
	classify_at(t, 0, cls, 0);
	if (cls[0] == CLS_MEMORY || cls[1] == CLS_MEMORY)
		return PASS_MEMORY;
	return cls[0] == CLS_NONE && cls[1] == CLS_NONE ? PASS_NONE : PASS_REGS;
}

static const uint8_t int_regs[6] = {VREG_RDI, VREG_RSI, VREG_RDX, VREG_RCX, VREG_R8, VREG_R9};

struct reg_state {
	unsigned next_int, next_sse;
	uint32_t stack; /* bytes of stack arguments so far */
};

static void set_unsupported(struct value_location *loc, const char *why)
{
	memset(loc, 0, sizeof(*loc));
	loc->where = WHERE_UNSUPPORTED;
	loc->why = why;
}

static void add_piece(struct value_location *loc, uint8_t kind, uint8_t reg, uint32_t size,
		      uint32_t value_offset, int32_t offset)
{
	struct value_piece *p = &loc->pieces[loc->npieces++];
	*p = (struct value_piece){.kind = kind,
				  .reg = reg,
				  .value_offset = value_offset,
				  .offset = offset,
				  .size = size > 0xffff ? 0xffff : (uint16_t)size};
}

static void place_on_stack(struct reg_state *rs, const struct ctype *t, struct value_location *loc)
{
	uint32_t align = t->align > 8 ? 16 : 8;
	rs->stack = (rs->stack + align - 1) & ~(align - 1);
	loc->where = WHERE_PIECES;
	add_piece(loc, PIECE_STACK, 0, t->size, 0, (int32_t)(8 + rs->stack));
	rs->stack += (t->size + 7) & ~7u;
}

/* Registers for the eightbytes of a PASS_REGS value, if they are free. */
static bool place_in_regs(struct reg_state *rs, const struct ctype *t, const enum abi_class cls[2],
			  struct value_location *loc)
{
	unsigned eightbytes = (t->size + 7) / 8, ints = 0, sses = 0;
	for (unsigned i = 0; i < eightbytes; i++)
		ints += cls[i] == CLS_INTEGER, sses += cls[i] == CLS_SSE;
	if (rs->next_int + ints > 6 || rs->next_sse + sses > 8)
		return false;
	loc->where = WHERE_PIECES;
	for (unsigned i = 0; i < eightbytes; i++) {
		uint32_t size = t->size - 8 * i < 8 ? t->size - 8 * i : 8;
		if (cls[i] == CLS_INTEGER)
			add_piece(loc, PIECE_REG, int_regs[rs->next_int++], size, 8 * i, 0);
		else if (cls[i] == CLS_SSE)
			add_piece(loc, PIECE_REG, (uint8_t)(VREG_XMM0 + rs->next_sse++), size,
				  8 * i, 0);
	}
	return true;
}

static void place_argument(struct reg_state *rs, const struct ctype *t, struct value_location *loc)
{
	enum abi_class cls[2];
	memset(loc, 0, sizeof(*loc));
	switch (classify(t, cls)) {
	case PASS_NONE:
		loc->where = WHERE_PIECES;
		return;
	case PASS_REFERENCE:
		if (rs->next_int < 6) {
			loc->where = WHERE_PIECES;
			add_piece(loc, PIECE_INDIRECT, int_regs[rs->next_int++], t->size, 0, 0);
		} else {
			set_unsupported(loc, "passed by reference on the stack");
			rs->stack += 8;
		}
		return;
	case PASS_VECTOR:
		set_unsupported(loc, "vector type");
		rs->next_sse++;
		return;
	case PASS_UNKNOWN:
		set_unsupported(loc, "incomplete type");
		return;
	case PASS_REGS:
		if (place_in_regs(rs, t, cls, loc))
			return;
		__attribute__((fallthrough)); /* not enough registers left */
	case PASS_MEMORY:
	case PASS_X87:
		place_on_stack(rs, t, loc);
		return;
	}
}

static void place_return(const struct ctype *t, struct value_location *loc, bool *hidden)
{
	enum abi_class cls[2];
	memset(loc, 0, sizeof(*loc));
	*hidden = false;
	switch (classify(t, cls)) {
	case PASS_NONE:
		loc->where = t->kind == CTYPE_VOID ? WHERE_NONE : WHERE_PIECES;
		return;
	case PASS_X87:
		if (t->kind != CTYPE_FLOAT) {
			set_unsupported(loc, "complex long double is returned in st(0) and st(1)");
			return;
		}
		loc->where = WHERE_PIECES;
		add_piece(loc, PIECE_REG, VREG_ST0, t->size, 0, 0);
		return;
	case PASS_VECTOR:
		set_unsupported(loc, "vector type");
		return;
	case PASS_UNKNOWN:
		set_unsupported(loc, "incomplete type");
		return;
	case PASS_REGS: {
		unsigned ints = 0, sses = 0;
		static const uint8_t ret_int[2] = {VREG_RAX, VREG_RDX};
		loc->where = WHERE_PIECES;
		for (unsigned i = 0; i < (t->size + 7) / 8; i++) {
			uint32_t size = t->size - 8 * i < 8 ? t->size - 8 * i : 8;
			if (cls[i] == CLS_INTEGER)
				add_piece(loc, PIECE_REG, ret_int[ints++], size, 8 * i, 0);
			else if (cls[i] == CLS_SSE)
				add_piece(loc, PIECE_REG, (uint8_t)(VREG_XMM0 + sses++), size,
					  8 * i, 0);
		}
		return;
	}
	case PASS_MEMORY:
	case PASS_REFERENCE:
		*hidden = true;
		loc->where = WHERE_PIECES;
		add_piece(loc, PIECE_INDIRECT, VREG_RAX, t->size, 0, 0);
		return;
	}
}

/* --- the capture plan --- */

/* A reference's object, read after its pointer when it fits in the value
 * whole. */
static void plan_referent(struct plan_value *v, const struct ctype *t,
			  const struct value_location *loc, struct plan_step *s)
{
	const struct ctype *object = t->is_reference ? t->element : NULL;
	if (!object || object->size == 0 || object->size > FUNC_PLAN_MAX_COPY - 8 ||
	    loc->npieces != 1 || loc->pieces[0].kind == PIECE_INDIRECT || v->size != 8)
		return;
	*s =
	    (struct plan_step){.op = PLAN_DEREF, .size = (uint16_t)object->size, .value_offset = 8};
	v->count++;
	v->size = (uint16_t)(8 + object->size);
}

static void plan_value(struct func_plan *plan, struct plan_value *v, const struct ctype *t,
		       const struct value_location *loc)
{
	v->first = plan->nsteps;
	v->count = 0;
	v->size = 0;
	struct plan_step *s = &plan->steps[plan->nsteps];
	if (loc->where != WHERE_PIECES) {
		*s = (struct plan_step){.op = PLAN_UNAVAILABLE};
		v->count = 1;
	} else if (t->kind == CTYPE_STRING && loc->npieces == 1 &&
		   loc->pieces[0].kind != PIECE_INDIRECT) {
		const struct value_piece *p = &loc->pieces[0];
		*s = (struct plan_step){.op = p->kind == PIECE_REG ? PLAN_STRING_REG
								   : PLAN_STRING_STACK,
					.reg = p->reg,
					.size = p->size,
					.offset = p->offset};
		v->count = 1;
	} else {
		for (unsigned i = 0; i < loc->npieces; i++) {
			const struct value_piece *p = &loc->pieces[i];
			if (p->value_offset >= FUNC_PLAN_MAX_COPY)
				break;
			uint32_t size = p->size;
			if (p->value_offset + size > FUNC_PLAN_MAX_COPY)
				size = FUNC_PLAN_MAX_COPY - p->value_offset;
			uint8_t op = p->kind == PIECE_REG     ? PLAN_REG
				     : p->kind == PIECE_STACK ? PLAN_STACK
							      : PLAN_MEMORY;
			s[v->count++] =
			    (struct plan_step){.op = op,
					       .reg = p->reg,
					       .size = (uint16_t)size,
					       .value_offset = (uint16_t)p->value_offset,
					       .offset = p->offset};
			if (p->value_offset + size > v->size)
				v->size = (uint16_t)(p->value_offset + size);
		}
		plan_referent(v, t, loc, &s[v->count]);
	}
	plan->nsteps += v->count;
}

static void build_plan(struct func_signature *sig)
{
	struct func_plan *plan = &sig->plan;
	memset(plan, 0, sizeof(*plan));
	plan->nargs =
	    sig->nparams < FUNC_PLAN_MAX_ARGS ? (uint8_t)sig->nparams : FUNC_PLAN_MAX_ARGS;
	for (unsigned i = 0; i < plan->nargs; i++)
		plan_value(plan, &plan->args[i], sig->params[i].type, &sig->params[i].loc);
	plan->has_return = sig->return_type->kind != CTYPE_VOID;
	if (plan->has_return)
		plan_value(plan, &plan->ret, sig->return_type, &sig->ret);
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
 * children of `scope` and of the namespaces and classes in it.  (Not
 * dwarf_getscopes: at an entry that is also an inlined call's first
 * instruction it answers the inlined function.) */
static bool find_function(Dwarf_Die *scope, Dwarf_Addr pc, Dwarf_Die *fn, int depth)
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
			break;
		case DW_TAG_namespace:
		case DW_TAG_structure_type:
		case DW_TAG_class_type:
		case DW_TAG_union_type:
			if (find_function(&child, pc, fn, depth + 1))
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
	if (die_udata(fn, DW_AT_calling_convention, DW_CC_normal) == DW_CC_nocall)
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
	const struct ctype *t = type_of(c, die, 0);
	Dwarf_Die core, target;
	if (!t->is_reference || dwarf_peel_type(die, &core) != 0 || !die_type(&core, &target))
		return t;
	struct ctype *copy = arena_alloc(c->arena, sizeof(*copy));
	if (!copy)
		return t;
	*copy = *t;
	copy->element = type_of(c, &target, 1);
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
		bool artificial = die_flag(&child, DW_AT_artificial);
		if (artificial && a_copy && !copy_takes(fn, &child))
			continue;
		struct func_param *p = &params[n++];
		p->name = arena_strdup(c->arena, die_name(&child));
		p->artificial = artificial;
		bool typed = die_type(&child, &type);
		/* `this` is shown as Foo *, not Foo *const */
		if (typed && p->artificial && dwarf_tag(&type) == DW_TAG_const_type)
			typed = die_type(&type, &type);
		p->type = typed ? value_type(c, &type) : type_of(c, NULL, 0);
	} while (dwarf_siblingof(&child, &child) == 0);
	return n;
}

static void place_all(struct func_signature *sig, struct func_param *params)
{
	place_return(sig->return_type, &sig->ret, &sig->hidden_return_pointer);
	struct reg_state rs = {.next_int = sig->hidden_return_pointer};
	for (uint32_t i = 0; i < sig->nparams; i++) {
		if (sig->abi_known)
			place_argument(&rs, params[i].type, &params[i].loc);
		else
			set_unsupported(&params[i].loc, "compiler clone with its own convention");
	}
	if (!sig->abi_known && sig->ret.where == WHERE_PIECES)
		set_unsupported(&sig->ret, "compiler clone with its own convention");
}

static struct func_signature *describe_function(struct sig_ctx *c, Dwarf_Die *cu, Dwarf_Die *fn,
						uint64_t address)
{
	struct func_signature *sig = arena_alloc(c->arena, sizeof(*sig));
	if (!sig)
		return NULL;
	Dwarf_Die owner, type;
	parameter_owner(fn, &owner);
	int lang = dwarf_srclang(cu);
	c->cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		 lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14 || lang == 0x2a ||
		 lang == 0x2b; /* C++17, C++20 (DWARF 6 numbers) */
	sig->name = arena_strdup(c->arena, die_name(fn));
	sig->address = address;
	sig->abi_known = !is_compiler_clone(c->m, address, fn);
	sig->return_type = die_type(fn, &type) ? value_type(c, &type) : type_of(c, NULL, 0);
	uint32_t max = count_children(&owner, DW_TAG_formal_parameter);
	struct func_param *params = arena_alloc(c->arena, (max ? max : 1) * sizeof(*params));
	if (!params)
		return NULL;
	sig->nparams = read_params(c, fn, &owner, sig, params, max);
	sig->params = params;
	place_all(sig, params);
	build_plan(sig);
	return c->arena->failed ? NULL : sig;
}

static const struct func_signature *lookup_uncached(struct signature_table *t, struct sig_module *m,
						    uint64_t address)
{
	if (!m->dwarf)
		return NULL;
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, address, &bias);
	Dwarf_Die fn;
	if (!cu || !find_function(cu, address - bias, &fn, 0))
		return NULL;
	struct sig_ctx c = {.arena = &t->arena, .m = m};
	return describe_function(&c, cu, &fn, address);
}

const struct func_signature *signature_table_lookup(struct signature_table *t, const char *path,
						    uint64_t file_address)
{
	struct sig_module *m = table_module(t, path);
	if (!m || !m->mod)
		return NULL;
	const void *known = map_get(&m->signatures, file_address);
	if (known)
		return known == &no_signature ? NULL : known;
	const struct func_signature *sig = lookup_uncached(t, m, file_address);
	map_put(&m->signatures, file_address, sig ? (void *)sig : (void *)&no_signature);
	return sig;
}

/* --- describing a signature in one line --- */

const char *value_reg_name(unsigned reg)
{
	static const char *const names[VREG_COUNT] = {
	    "rdi",  "rsi",  "rdx",  "rcx",  "r8",   "r9",   "rax",  "xmm0",
	    "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "st0",
	};
	return reg < VREG_COUNT ? names[reg] : "?";
}

struct text_out {
	char *buf;
	size_t len, used;
};

static void put(struct text_out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *at = o->used < o->len ? o->buf + o->used : NULL;
	int n = vsnprintf(at, at ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void put_location(struct text_out *o, const struct value_location *loc)
{
	if (loc->where == WHERE_UNSUPPORTED) {
		put(o, " @?(%s)", loc->why);
		return;
	}
	if (loc->where == WHERE_NONE)
		return;
	put(o, " @");
	if (loc->npieces == 0)
		put(o, "-");
	for (unsigned i = 0; i < loc->npieces; i++) {
		const struct value_piece *p = &loc->pieces[i];
		const char *sep = i ? "," : "";
		if (p->kind == PIECE_REG)
			put(o, "%s%s:%u", sep, value_reg_name(p->reg), p->size);
		else if (p->kind == PIECE_STACK)
			put(o, "%sstack+%d:%u", sep, p->offset, p->size);
		else
			put(o, "%s[%s]:%u", sep, value_reg_name(p->reg), p->size);
	}
}

/* "int a", "char *p": a type and the name it declares. */
static void put_declared(struct text_out *o, const char *type, const char *name)
{
	size_t n = strlen(type);
	bool tight = n && (type[n - 1] == '*' || type[n - 1] == '&');
	put(o, "%s%s%s", type, *name && !tight ? " " : "", name);
}

size_t func_signature_describe(const struct func_signature *s, char *buf, size_t len)
{
	struct text_out o = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	put_declared(&o, s->return_type->text, s->name);
	put(&o, "(");
	for (uint32_t i = 0; i < s->nparams; i++) {
		const struct func_param *p = &s->params[i];
		put(&o, i ? ", " : "");
		put_declared(&o, p->type->text, p->name);
		put_location(&o, &p->loc);
	}
	if (s->variadic)
		put(&o, "%s...", s->nparams ? ", " : "");
	put(&o, ")");
	if (s->hidden_return_pointer)
		put(&o, " hidden:rdi");
	put_location(&o, &s->ret);
	return o.used;
}

/* --- plan bytes --- */

#define PLAN_MAGIC "CTP1"
#define PLAN_HEAD 8  /* magic, nargs, has_return, nsteps, 0 */
#define PLAN_VALUE 4 /* first, count, size (u16) */
#define PLAN_STEP 12 /* op, reg, size, value_offset (u16), 0 (u16), offset (i32) */

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

size_t func_plan_serialized_size(const struct func_plan *plan)
{
	return PLAN_HEAD + PLAN_VALUE * ((size_t)plan->nargs + 1) +
	       PLAN_STEP * (size_t)plan->nsteps;
}

static uint8_t *put_value(uint8_t *p, const struct plan_value *v)
{
	p[0] = v->first;
	p[1] = v->count;
	put_u16(p + 2, v->size);
	return p + PLAN_VALUE;
}

size_t func_plan_serialize(const struct func_plan *plan, uint8_t *buf, size_t cap)
{
	size_t need = func_plan_serialized_size(plan);
	if (cap < need || plan->nargs > FUNC_PLAN_MAX_ARGS || plan->nsteps > FUNC_PLAN_MAX_STEPS)
		return 0;
	uint8_t *p = buf;
	memcpy(p, PLAN_MAGIC, 4);
	p[4] = plan->nargs;
	p[5] = plan->has_return;
	p[6] = plan->nsteps;
	p[7] = 0;
	p += PLAN_HEAD;
	for (unsigned i = 0; i < plan->nargs; i++)
		p = put_value(p, &plan->args[i]);
	p = put_value(p, &plan->ret);
	for (unsigned i = 0; i < plan->nsteps; i++, p += PLAN_STEP) {
		const struct plan_step *s = &plan->steps[i];
		uint32_t off = (uint32_t)s->offset;
		p[0] = s->op;
		p[1] = s->reg;
		put_u16(p + 2, s->size);
		put_u16(p + 4, s->value_offset);
		put_u16(p + 6, 0);
		put_u16(p + 8, (uint16_t)off);
		put_u16(p + 10, (uint16_t)(off >> 16));
	}
	return need;
}

static bool step_valid(const struct plan_step *s, uint16_t value_size, unsigned count)
{
	if (s->op >= PLAN_OP_COUNT || s->reg >= VREG_COUNT)
		return false;
	if (s->op == PLAN_UNAVAILABLE || s->op == PLAN_STRING_REG || s->op == PLAN_STRING_STACK)
		return count == 1 && value_size == 0;
	if (s->size == 0 || s->value_offset + s->size > value_size)
		return false;
	if (s->op == PLAN_DEREF)
		return s->value_offset >= 8;
	return s->op != PLAN_REG || s->size <= (s->reg == VREG_ST0 ? 16 : 8);
}

static bool value_valid(const struct func_plan *plan, const struct plan_value *v)
{
	if (v->size > FUNC_PLAN_MAX_COPY || v->first + v->count > plan->nsteps)
		return false;
	for (unsigned i = 0; i < v->count; i++)
		if (!step_valid(&plan->steps[v->first + i], v->size, v->count))
			return false;
	return true;
}

static const uint8_t *get_value(const uint8_t *p, struct plan_value *v)
{
	v->first = p[0];
	v->count = p[1];
	v->size = get_u16(p + 2);
	return p + PLAN_VALUE;
}

int func_plan_parse(const uint8_t *buf, size_t len, struct func_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	if (len < PLAN_HEAD || memcmp(buf, PLAN_MAGIC, 4) != 0 || buf[4] > FUNC_PLAN_MAX_ARGS ||
	    buf[5] > 1 || buf[6] > FUNC_PLAN_MAX_STEPS || buf[7] != 0)
		return -1;
	plan->nargs = buf[4];
	plan->has_return = buf[5];
	plan->nsteps = buf[6];
	if (len != func_plan_serialized_size(plan))
		return -1;
	const uint8_t *p = buf + PLAN_HEAD;
	for (unsigned i = 0; i < plan->nargs; i++)
		p = get_value(p, &plan->args[i]);
	p = get_value(p, &plan->ret);
	for (unsigned i = 0; i < plan->nsteps; i++, p += PLAN_STEP) {
		struct plan_step *s = &plan->steps[i];
		s->op = p[0];
		s->reg = p[1];
		s->size = get_u16(p + 2);
		s->value_offset = get_u16(p + 4);
		s->offset = (int32_t)((uint32_t)get_u16(p + 8) | (uint32_t)get_u16(p + 10) << 16);
		if (get_u16(p + 6) != 0)
			return -1;
	}
	for (unsigned i = 0; i < plan->nargs; i++)
		if (!value_valid(plan, &plan->args[i]))
			return -1;
	if (plan->has_return ? !value_valid(plan, &plan->ret)
			     : plan->ret.count != 0 || plan->ret.size != 0)
		return -1;
	return 0;
}
