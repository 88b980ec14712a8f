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

#endif
