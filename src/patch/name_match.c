/*
 * name_match.c - the names a record-time filter is matched against: the
 * symbol's, its full demangled one and the short one the views show
 * (view_short_name, so that a name copied from `report` selects the
 * function it came from).  A plain name (no regular expression's
 * character) names a function whole; a regular expression may match
 * anywhere in a name, as uftrace takes them.  Shared by the -finstrument-functions runtime,
 * the in-process engine and the ptrace engine.
 */
#include "name_match.h"
#include "../views/view_util.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

typedef char *(*demangle_fn)(const char *mangled, char *out, size_t *len, int *status);

/* The tool's demangler (symbols/demangle.c), which opens libstdc++ for
 * it; not in libcalltrace.so, which must not load a library into the
 * program it traces. */
extern void *symbol_cxa_demangler(void) __attribute__((weak));

/* The C++ runtime's __cxa_demangle: the tool's, or the one the traced
 * process has; else NULL. */
static demangle_fn demangler(void)
{
	static demangle_fn fn;
	static int looked;
	if (!looked) {
		fn = symbol_cxa_demangler ? (demangle_fn)symbol_cxa_demangler()
					  : (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		looked = 1;
	}
	return fn;
}

void name_match_prepare(void)
{
	(void)demangler();
}

int name_match_safe_now(void)
{
	sigset_t blocked;
	if (pthread_sigmask(SIG_BLOCK, NULL, &blocked) != 0)
		return 0;
	return sigisemptyset(&blocked);
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

int name_pattern_is_plain(const char *pattern)
{
	return pattern && *pattern && !strpbrk(pattern, "\\^$.|?*+()[]{}");
}

int name_pattern_names(const char *pattern, const char *name)
{
	size_t lp = strlen(pattern), ln = strlen(name);
	if (ln == lp)
		return memcmp(name, pattern, ln) == 0;
	if (lp >= 2 && pattern[lp - 2] == ':' && pattern[lp - 1] == ':')
		return ln > lp && memcmp(name, pattern, lp) == 0;
	return ln > lp + 2 && memcmp(name + ln - lp - 2, "::", 2) == 0 &&
	       memcmp(name + ln - lp, pattern, lp) == 0;
}

/* The pattern's test of one of a function's names. */
static int pattern_finds(const regex_t *re, int plain, const char *pattern, const char *text)
{
	return plain ? name_pattern_names(pattern, text) : matches(re, text);
}

int name_match(const regex_t *re, const char *pattern, const char *name)
{
	if (!name)
		return 0;
	int plain = name_pattern_is_plain(pattern);
	if (pattern_finds(re, plain, pattern, name))
		return 1;
	demangle_fn demangle = strncmp(name, "_Z", 2) == 0 ? demangler() : NULL;
	if (!demangle)
		return 0;
	int status = -1;
	char *full = demangle(name, NULL, NULL, &status);
	int hit = 0;
	if (full && status == 0) {
		char brief[1024];
		hit = pattern_finds(re, plain, pattern,
				    view_short_name(full, brief, sizeof(brief))) ||
		      (names_parameters(pattern) && matches(re, full));
	}
	free(full);
	return hit;
}
