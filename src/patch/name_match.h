/*
 * name_match.h - whether a record-time filter (-F/-N) names a function:
 * under any of the names the tool shows for it.
 */
#ifndef CALLTRACE_NAME_MATCH_H
#define CALLTRACE_NAME_MATCH_H

#include <regex.h>

/* Whether `re` (compiled with REG_NOSUB from `pattern`) finds a match in
 * the name of the function as the symbol table has it (C++ names
 * mangled), in its short name as the views show it (`ns::Class::method`,
 * no parameters or template arguments) or, when `pattern` has a `(` or a
 * `<`, in its full demangled name.  C++ names are demangled only when the
 * process has the C++ runtime's demangler loaded already (a program built
 * from C++ has): a C program gets no libstdc++ from the tracer. */
int name_match(const regex_t *re, const char *pattern, const char *name);

#endif
