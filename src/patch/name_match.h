/*
 * name_match.h - whether a record-time filter (-F/-N) names a function:
 * under any of the names the tool shows for it.
 */
#ifndef CALLTRACE_NAME_MATCH_H
#define CALLTRACE_NAME_MATCH_H

#include <regex.h>

/* Whether `re` (compiled with REG_NOSUB from `pattern`) finds a match in
 * (or, when `pattern` is a plain name, whether it names: see below)
 * the name of the function as the symbol table has it (C++ names
 * mangled), in its short name as the views show it (`ns::Class::method`,
 * no parameters or template arguments) or, when `pattern` has a `(` or a
 * `<`, in its full demangled name.  C++ names are demangled only when the
 * process has the C++ runtime's demangler loaded already (a program built
 * from C++ has): a C program gets no libstdc++ from the tracer. */
int name_match(const regex_t *re, const char *pattern, const char *name);

/* Whether `pattern` is a plain name: none of the characters that make a
 * regular expression (\ ^ $ . | ? * + ( ) [ ] { }).  A plain name names a
 * function whole, as uftrace takes it (`-F parse` is not `parse_all`); any
 * other pattern is a regular expression that may match anywhere in a name. */
int name_pattern_is_plain(const char *pattern);
/* Whether the plain name `pattern` names `name`: the same text; or `name`
 * in a scope that `pattern` leaves out (`Parser::parse` names
 * `shop::Parser::parse`); or, when `pattern` ends in `::`, a name in that
 * scope (`std::` names `std::max`). */
int name_pattern_names(const char *pattern, const char *name);

/* name_match allocates (the regex matcher, the C++ demangler): it must not
 * run in a signal handler that interrupted the thread inside malloc, or
 * the thread deadlocks on malloc's lock.  name_match_prepare looks up what
 * is looked up once (the demangler), before any handler can come;
 * name_match_safe_now says whether the calling thread may be running a
 * signal handler (a signal is blocked: a handler blocks its own while it
 * runs, unless SA_NODEFER), so that the caller defers the match. */
void name_match_prepare(void);
int name_match_safe_now(void);

#endif
