/*
 * libkinds.c - a shared library for the tests of library calls: it
 * provides kinds_lookup, and an atoi of its own that comes before the C
 * library's in load order (so a call of atoi goes here, not to libc).
 * kinds_lookup has an alias, _kinds_find, as C library functions have
 * (puts and _IO_puts): a pointer to it is named kinds_lookup.
 */
#include <stdlib.h>

int kinds_lookup(const char *key)
{
	return key[0];
}

int _kinds_find(const char *key) __attribute__((alias("kinds_lookup")));

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10) + 1;
}
