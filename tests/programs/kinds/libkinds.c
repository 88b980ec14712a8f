/*
 * libkinds.c - a shared library for the tests of library calls: it
 * provides kinds_lookup, and an atoi of its own that comes before the C
 * library's in load order (so a call of atoi goes here, not to libc).
 */
#include <stdlib.h>

int kinds_lookup(const char *key)
{
	return key[0];
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10) + 1;
}
