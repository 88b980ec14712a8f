/*
 * view_names.h - telling apart the functions a view would show alike
 * (overloads with short names, same-named static functions): see
 * view_names.c.
 */
#ifndef CALLTRACE_VIEW_NAMES_H
#define CALLTRACE_VIEW_NAMES_H

#include <stddef.h>
#include "../symbols/symbols.h"

enum {
	VIEW_NAME_ALONE,     /* no other symbol of the view shows alike */
	VIEW_NAME_BY_PARAMS, /* an overload: "shapes::area(double)" */
	VIEW_NAME_BY_FILE,   /* the same full name: "scale (a.c)" */
};

/* For syms[0..n), one of the values above into how[i]; -1 when out of
 * memory (then every how[i] is VIEW_NAME_ALONE). */
int view_names_apart(const struct symbol *const *syms, size_t n, unsigned char *how);

/* The name the text views show (view_kind_shown_name), told apart as `how`
 * says; into buf, returns it (or the name itself). */
const char *view_name_told_apart(const struct symbol *s, unsigned how, char *buf, size_t len);

/* The names a view that draws frames shows (the flame graphs, the folded
 * stacks): each symbol's own name, but where two of the view's symbols
 * would show alike, the form that tells them apart, as report tells them
 * ("MEM_read32 (a.c)"), without report's "@library". */
struct view_shown_names {
	char **apart; /* by symbol id: the name told apart; NULL: the symbol's own */
	uint32_t n;   /* entries of apart */
};
/* Decides the names of the symbols syms[0..n) (a symbol may come more than
 * once).  0, or -1 when out of memory (then every symbol shows its own). */
int view_shown_names_settle(struct view_shown_names *v, const struct symbol *const *syms, size_t n);
/* The name `s` shows (s->name when nothing was settled). */
const char *view_shown_name(const struct view_shown_names *v, const struct symbol *s);
void view_shown_names_free(struct view_shown_names *v);

#endif
