/*
 * string_hash.h - FNV-1a over a NUL-terminated string: the hash the symbol
 * pool, the views' colours and the runtime's "said already" mark share.
 */
#ifndef CALLTRACE_STRING_HASH_H
#define CALLTRACE_STRING_HASH_H

#include <stdint.h>

static inline uint32_t string_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

#endif
