/*
 * demangle.c - C++ name demangling with the C++ runtime's __cxa_demangle,
 * and the name shown for an ELF symbol.
 *
 * A symbol version suffix ("name@VER", "name@@VER") is kept apart from the
 * mangled part so that versioned C++ symbols demangle too.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "symbols.h"
#include "symbols_internal.h"

/* The C++ runtime's __cxa_demangle (extern "C" in <cxxabi.h>). */
typedef char *(*cxa_demangle_fn)(const char *mangled, char *out, size_t *len, int *status);
static cxa_demangle_fn cxa_demangle;

/* libstdc++ is opened at the first mangled name, not linked: a command
 * that meets none (`record`, a C program's views) does not pay its load,
 * some 5,000 relocations at every start. */
static void find_demangler(void)
{
	cxa_demangle = (cxa_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (cxa_demangle)
		return;
	void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (cxx)
		cxa_demangle = (cxa_demangle_fn)dlsym(cxx, "__cxa_demangle");
}

void *symbol_cxa_demangler(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, find_demangler);
	return (void *)cxa_demangle;
}

/* The first `len` bytes of `name` demangled (malloc'd), or NULL if they are
 * not a mangled C++ name. */
static char *demangle_prefix(const char *name, size_t len)
{
	if (len < 2 || strncmp(name, "_Z", 2) != 0)
		return NULL;
	char *mangled = strndup(name, len);
	if (!mangled)
		return NULL;
	cxa_demangle_fn demangle = (cxa_demangle_fn)symbol_cxa_demangler();
	int status = -1;
	char *plain = demangle ? demangle(mangled, NULL, NULL, &status) : NULL;
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

static enum symbol_name_style name_style = SYMBOL_NAMES_SHORT;

void symbol_set_name_style(enum symbol_name_style style)
{
	name_style = style;
}

int symbol_parse_name_style(const char *text)
{
	if (strcmp(text, "simple") == 0)
		return SYMBOL_NAMES_SHORT;
	if (strcmp(text, "full") == 0)
		return SYMBOL_NAMES_FULL;
	if (strcmp(text, "no") == 0)
		return SYMBOL_NAMES_MANGLED;
	return -1;
}

int symbol_names_of(const char *raw, struct symbol_names *out)
{
	size_t len = unversioned_length(raw);
	out->mangled = strndup(raw, len);
	out->full = symbol_display_name(raw);
	out->shown = out->brief = NULL;
	if (!out->mangled || !out->full)
		goto fail;
	size_t cap = strlen(out->full) + 1;
	if (!(out->brief = malloc(cap)))
		goto fail;
	symbol_short_name(out->full, out->brief, cap);
	if (name_style == SYMBOL_NAMES_MANGLED)
		out->shown = strdup(out->mangled);
	else if (name_style == SYMBOL_NAMES_FULL)
		out->shown = strdup(out->full);
	else
		out->shown = strdup(out->brief);
	if (out->shown)
		return 0;
fail:
	symbol_names_free(out);
	return -1;
}

void symbol_names_free(struct symbol_names *n)
{
	free(n->mangled);
	free(n->full);
	free(n->shown);
	free(n->brief);
	n->mangled = n->full = n->shown = n->brief = NULL;
}
