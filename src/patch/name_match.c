/*
 * name_match.c - the names a record-time filter is matched against: the
 * symbol's, its full demangled one and the short one the views show
 * (view_short_name, so that a name copied from `report` selects the
 * function it came from).  Shared by the -finstrument-functions runtime,
 * the in-process engine and the ptrace engine.
 */
#include "name_match.h"
#include "../views/view_util.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/* The C++ runtime's __cxa_demangle when the process has it, else NULL. */
static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static int looked;
	if (!looked) {
		fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		looked = 1;
	}
	return fn;
}

static int matches(const regex_t *re, const char *text)
{
	return regexec(re, text, 0, NULL, 0) == 0;
}

/* Whether the pattern speaks of parameters or template arguments: then
 * it is for the full demangled name.  Otherwise the full name is left
 * alone, as a parameter type (`std::string`) or a return type would
 * match words the function's own name has not (-N 'std::' leaves out the
 * standard library's functions, not every function that takes a string). */
static int names_parameters(const char *pattern)
{
	return pattern && (strchr(pattern, '(') || strchr(pattern, '<'));
}

int name_match(const regex_t *re, const char *pattern, const char *name)
{
	if (!name)
		return 0;
	if (matches(re, name))
		return 1;
	demangle_fn demangle = strncmp(name, "_Z", 2) == 0 ? demangler() : NULL;
	if (!demangle)
		return 0;
	int status = -1;
	char *full = demangle(name, NULL, NULL, &status);
	int hit = 0;
	if (full && status == 0) {
		char brief[1024];
		hit = matches(re, view_short_name(full, brief, sizeof(brief))) ||
		      (names_parameters(pattern) && matches(re, full));
	}
	free(full);
	return hit;
}
