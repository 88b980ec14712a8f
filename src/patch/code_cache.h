/*
 * code_cache.h - a module's code as the in-process engine leaves it at
 * start, kept in the session's cache folder for the later processes of
 * the module to map (code_cache.c).
 */
#ifndef CALLTRACE_PATCH_CODE_CACHE_H
#define CALLTRACE_PATCH_CODE_CACHE_H

#include <stdint.h>

/* The code of a module, whole pages: where it lies in this process, and
 * the digest of the writes that made it (patch_shared.c). */
struct code_cache_span {
	const char *path; /* the module's file */
	int with_eh_frame;
	uint64_t bias;	  /* the module's load bias */
	uint64_t address; /* page-aligned */
	uint64_t length;  /* whole pages */
	uint64_t digest;
	uint64_t session; /* the recording's */
};

enum code_cache_found {
	CODE_MAPPED, /* the file's code is in place */
	CODE_NONE,   /* no usable file: write one */
	CODE_KEEP,   /* another process of this recording wrote its own */
};

/* Maps the folder's file of the module over the span, when it is there,
 * the user's own, and made by the same writes on the same module; else
 * the code is left as it was.  A file of other writes is replaced once a
 * recording, by the first process that meets it: while the processes of
 * one recording learn what runs, the writes of each differ from the
 * last's, and each would write its code again. */
enum code_cache_found code_cache_map(const char *dir, const struct code_cache_span *c);
/* Writes the span's code as it is now into the folder's file of the
 * module (after code_cache_map said CODE_NONE); 0, or -1. */
int code_cache_write(const char *dir, const struct code_cache_span *c);

#endif
