/*
 * ctype_dwarf.c - type descriptors (struct ctype) from DWARF type DIEs:
 * the type's text as a C programmer writes it, and what the views and the
 * calling convention need (kind, size, members, enumerators, whether a C++
 * class is passed by a hidden pointer).
 */
#include "func_signature_internal.h"

#include <dwarf.h>
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TEXT_MAX 512 /* longest type text */

static const struct ctype void_type = {.kind = CTYPE_VOID, .align = 1, .text = "void"};
static const struct ctype unknown_type = {.kind = CTYPE_UNKNOWN, .align = 1, .text = "?"};

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
	const char *name = sig_die_name(die);
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
	bool has = sig_die_type(die, &target);
	char buf[TEXT_MAX];
	if (has && sig_is_pointer_tag(dwarf_tag(&target))) {
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
				count =
				    sig_die_udata(&child, DW_AT_count,
						  sig_die_udata(&child, DW_AT_upper_bound, 0) + 1);
			else
				count = 0;
			n += text_printf(buf + n, sizeof(buf) - (size_t)n, count ? "[%llu]" : "[]",
					 (unsigned long long)count);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	Dwarf_Die elem;
	type_text(c, sig_die_type(die, &elem) ? &elem : NULL, buf, out, len, depth + 1);
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
				type_text(c, sig_die_type(&child, &type) ? &type : NULL, "", param,
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
			    params == 0 && sig_die_flag(die, DW_AT_prototyped) && !c->cxx ? "void"
											  : "");
	Dwarf_Die ret;
	type_text(c, sig_die_type(die, &ret) ? &ret : NULL, buf, out, len, depth + 1);
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
	bool has = sig_die_type(die, &target);
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

const struct ctype *sig_type_of(struct sig_ctx *c, Dwarf_Die *die, int depth);

static void describe_base(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core)
{
	uint64_t encoding = sig_die_udata(core, DW_AT_encoding, 0);
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
		t->ieee_quad = t->size == 16 && c->m->machine == EM_AARCH64;
		break;
	case DW_ATE_complex_float:
		if (t->size == 8 || t->size == 16 || t->size == 32) {
			t->kind = CTYPE_COMPLEX;
			t->ieee_quad = t->size == 32 && c->m->machine == EM_AARCH64;
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

static void describe_enum(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core)
{
	t->kind = CTYPE_ENUM;
	t->align = t->size ? t->size : 1;
	Dwarf_Die base;
	if (sig_die_type(core, &base) && dwarf_peel_type(&base, &base) == 0)
		t->is_signed = sig_die_udata(&base, DW_AT_encoding, 0) == DW_ATE_signed;
	uint32_t n = sig_count_children(core, DW_TAG_enumerator);
	struct ctype_enumerator *list = sig_arena_alloc(c->arena, (n ? n : 1) * sizeof(*list));
	if (!list)
		return;
	Dwarf_Die child;
	uint32_t i = 0;
	if (dwarf_child(core, &child) == 0) {
		do {
			if (dwarf_tag(&child) != DW_TAG_enumerator || i >= n)
				continue;
			list[i].name = sig_arena_strdup(c->arena, sig_die_name(&child));
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
	if (dwarf_tag(core) != DW_TAG_pointer_type || !sig_die_type(core, &target) ||
	    dwarf_peel_type(&target, &target) != 0 || dwarf_tag(&target) != DW_TAG_base_type)
		return;
	uint64_t encoding = sig_die_udata(&target, DW_AT_encoding, 0);
	if (sig_die_udata(&target, DW_AT_byte_size, 0) == 1 &&
	    (encoding == DW_ATE_signed_char || encoding == DW_ATE_unsigned_char ||
	     encoding == DW_ATE_UTF))
		t->kind = CTYPE_STRING;
}

/* A bitfield's position: legacy DW_AT_bit_offset counts from the top of a
 * DW_AT_byte_size storage unit, DW_AT_data_bit_offset from the start. */
static uint64_t member_bit_position(Dwarf_Die *member, uint64_t byte_offset, uint64_t bits)
{
	if (dwarf_hasattr(member, DW_AT_data_bit_offset))
		return sig_die_udata(member, DW_AT_data_bit_offset, 0);
	uint64_t storage = sig_die_udata(member, DW_AT_byte_size, 0);
	uint64_t from_top = sig_die_udata(member, DW_AT_bit_offset, 0);
	return byte_offset * 8 + storage * 8 - from_top - bits;
}

/* Fills one member; false when it is not a data member with a constant
 * place (static members, virtual bases). */
static bool describe_member(struct sig_ctx *c, Dwarf_Die *d, struct ctype_member *out, int depth)
{
	if (sig_die_flag(d, DW_AT_declaration) || sig_die_flag(d, DW_AT_external))
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
	out->type = sig_type_of(c, sig_die_type(d, &type) ? &type : NULL, depth + 1);
	if (dwarf_tag(d) == DW_TAG_inheritance)
		out->name = out->type->text;
	else
		out->name = sig_arena_strdup(c->arena, sig_die_name(d));
	uint64_t bits = sig_die_udata(d, DW_AT_bit_size, 0);
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
	if (sig_die_udata(fn, DW_AT_virtuality, 0) != 0)
		return true;
	if (sig_die_flag(fn, DW_AT_artificial) || sig_die_udata(fn, DW_AT_defaulted, 0) == 1)
		return false;
	const char *name = sig_die_name(fn), *class_name = sig_die_name(class_die);
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
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || sig_die_flag(&p, DW_AT_artificial))
			continue;
		/* the first real parameter: X(const X &) or X(X &&) */
		if (!sig_die_type(&p, &ref) || !sig_is_pointer_tag(dwarf_tag(&ref)) ||
		    dwarf_tag(&ref) == DW_TAG_pointer_type || !sig_die_type(&ref, &target) ||
		    dwarf_peel_type(&target, &target) != 0)
			return false;
		return strcmp(sig_die_name(&target), class_name) == 0;
	} while (dwarf_siblingof(&p, &p) == 0);
	return false;
}

static bool class_by_reference(struct sig_ctx *c, Dwarf_Die *core)
{
	uint64_t cc = sig_die_udata(core, DW_AT_calling_convention, 0);
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
	uint32_t n =
	    sig_count_children(core, DW_TAG_member) + sig_count_children(core, DW_TAG_inheritance);
	struct ctype_member *list = sig_arena_alloc(c->arena, (n ? n : 1) * sizeof(*list));
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
	t->align = (uint32_t)sig_die_udata(core, DW_AT_alignment, align);
	if (t->align == 0)
		t->align = 1;
}

static void describe_struct(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core, int depth)
{
	if (sig_die_flag(core, DW_AT_declaration)) {
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
	const struct ctype *e = sig_type_of(c, sig_die_type(core, &elem) ? &elem : NULL, depth + 1);
	uint64_t counts[8];
	int dims = 0;
	if (dwarf_child(core, &child) == 0) {
		do {
			if (dwarf_tag(&child) == DW_TAG_subrange_type && dims < 8)
				counts[dims++] = sig_die_udata(
				    &child, DW_AT_count,
				    sig_die_udata(&child, DW_AT_upper_bound, (uint64_t)-1) + 1);
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	/* inner dimensions become arrays of their own, innermost first */
	for (int d = dims - 1; d > 0; d--) {
		struct ctype *inner = sig_arena_alloc(c->arena, sizeof(*inner));
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
	t->kind = sig_die_flag(core, DW_AT_GNU_vector) ? CTYPE_UNKNOWN : CTYPE_ARRAY;
	t->element = e;
	t->count = dims ? (uint32_t)counts[0] : 0;
	t->align = e->align;
	t->unaligned = e->unaligned;
	if (t->size == 0)
		t->size = (uint32_t)(t->count * e->size);
}

static void describe_core(struct sig_ctx *c, struct ctype *t, Dwarf_Die *core, int depth)
{
	t->size = (uint32_t)sig_die_udata(core, DW_AT_byte_size, 0);
	t->align = 1;
	switch (dwarf_tag(core)) {
	case DW_TAG_base_type:
		describe_base(c, t, core);
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
const struct ctype *sig_type_of(struct sig_ctx *c, Dwarf_Die *die, int depth)
{
	if (!die)
		return &void_type;
	if (depth > TYPE_DEPTH_MAX)
		return &unknown_type;
	uint64_t key = sig_die_key(c->m, die);
	const struct ctype *known = sig_map_get(&c->m->types, key);
	if (known)
		return known;
	struct ctype *t = sig_arena_alloc(c->arena, sizeof(*t));
	if (!t)
		return &unknown_type;
	char text[TEXT_MAX];
	type_text(c, die, "", text, sizeof(text), 0);
	t->text = sig_arena_strdup(c->arena, text);
	Dwarf_Die core;
	int peeled = dwarf_peel_type(die, &core);
	if (peeled == 1)
		t->kind = CTYPE_VOID; /* const void, typedef void T */
	else if (peeled != 0 || dwarf_tag(&core) == DW_TAG_subroutine_type)
		t->kind = CTYPE_UNKNOWN, t->align = 1;
	else
		describe_core(c, t, &core, depth);
	if (sig_map_put(&c->m->types, key, t) < 0)
		c->arena->failed = 1;
	return t;
}
