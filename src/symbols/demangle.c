/*
 * demangle.c - C++ name demangling with the C++ runtime's __cxa_demangle,
 * and the name shown for an ELF symbol.
 *
 * A symbol version suffix ("name@VER", "name@@VER") is kept apart from the
 * mangled part so that versioned C++ symbols demangle too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols.h"
#include "symbols_internal.h"

/* Provided by libstdc++ (declared extern "C" in <cxxabi.h>). */
extern char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* The first `len` bytes of `name` demangled (malloc'd), or NULL if they are
 * not a mangled C++ name. */
static char *demangle_prefix(const char *name, size_t len)
{
	if (len < 2 || strncmp(name, "_Z", 2) != 0)
		return NULL;
	char *mangled = strndup(name, len);
	if (!mangled)
		return NULL;
	int status = 0;
	char *plain = __cxa_demangle(mangled, NULL, NULL, &status);
	free(mangled);
	if (status != 0) {
		free(plain);
		return NULL;
	}
	return plain;
}

static size_t unversioned_length(const char *name)
{
	const char *at = strchr(name, '@');
	return at ? (size_t)(at - name) : strlen(name);
}

char *symbol_display_name(const char *raw)
{
	size_t len = unversioned_length(raw);
	char *plain = demangle_prefix(raw, len);
	return plain ? plain : strndup(raw, len);
}

const char *symbol_demangle(const char *name, char *buf, size_t buflen)
{
	if (!name || !buf || buflen == 0)
		return name;
	size_t len = unversioned_length(name);
	char *plain = demangle_prefix(name, len);
	if (!plain)
		return name;
	snprintf(buf, buflen, "%s%s", plain, name + len);
	free(plain);
	return buf;
}
