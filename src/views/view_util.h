/*
 * view_util.h - what the views share: escaping for JSON and XML, fast
 * number output, names of modules and source places, durations, colours,
 * and a table keyed by symbol id.
 */
#ifndef CALLTRACE_VIEW_UTIL_H
#define CALLTRACE_VIEW_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../analysis/walker.h"
#include "../symbols/symbols.h"

/* Writes s as a JSON string, quotes included. */
void view_json_string(FILE *f, const char *s);
/* Writes s with &, <, >, " and ' escaped for XML text and attributes. */
void view_xml_text(FILE *f, const char *s);
/* Writes at most max bytes of s escaped for XML, cut at a UTF-8 boundary,
 * with ".." appended when it was cut. */
void view_xml_text_cut(FILE *f, const char *s, size_t max);

/* Fast unsigned decimal output. */
void view_put_u64(FILE *f, uint64_t v);
/* ns as microseconds with three decimals ("12.345"): exact, no rounding. */
void view_put_us(FILE *f, uint64_t ns);
static inline void view_puts(FILE *f, const char *s)
{
	fputs_unlocked(s, f);
}

/* The last component of a path ("?" for NULL or ""). */
const char *view_basename(const char *path);
/* "file.c:12", "file.c", or "" when the symbol has no source place; the
 * file is shown by its base name. */
const char *view_source_place(const struct symbol *s, char *buf, size_t len);
/* "1.234 ms", "56 ns", "2.000 s". */
const char *view_duration(uint64_t ns, char *buf, size_t len);
/* "pid 12 tid 13 name" (name left out when empty). */
const char *view_thread_label(const struct walk_thread *t, char *buf, size_t len);

/* Where a demangled C++ name's parameter list starts: the '(' that
 * matches its last ')' ("apply<bool (*)(int)>(int, bool (*)(int)) const"
 * gives the one after '>'); NULL when the name has no parameter list. */
const char *view_name_params(const char *name);

/* What follows a demangled C++ name's parameter list: " const" of
 * "P::get(int) const", " &&" of a method for rvalues, "" when nothing does
 * or the name has no parameter list. */
const char *view_name_qualifiers(const char *name);

/* A demangled C++ name's scope and name alone, without its return type,
 * template arguments and parameter list, into buf ("int ns::twice<int>(int)"
 * gives "ns::twice", "std::vector<int>::push_back(int const&)"
 * "std::vector::push_back"); an operator's name is kept whole.  A C name
 * stays as it is.  Returns buf. */
const char *view_short_name(const char *name, char *buf, size_t len);

/* FNV-1a. */
uint32_t view_hash(const char *s);
/* A warm flame colour for a function name, "#rrggbb". */
const char *view_flame_color(const char *name, char *buf, size_t len);
/* A light colour for a group (module), "#rrggbb"; different names get
 * different hues. */
const char *view_group_color(const char *name, char *buf, size_t len);

/* A colour for how hot something is, 0 (cold: pale blue) to 1 (hot: red),
 * "#rrggbb". */
const char *view_heat_color(double heat, char *buf, size_t len);

/* A growable array of pointers indexed by symbol id; entries start NULL. */
struct view_symtab {
	void **slots;
	size_t len;
};
/* The slot for id (grown as needed); NULL when memory ran out. */
void **view_symtab_slot(struct view_symtab *t, uint32_t id);
/* Frees the table and, when free_entry is set, every entry. */
void view_symtab_free(struct view_symtab *t, void (*free_entry)(void *));

#endif
