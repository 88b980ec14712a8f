/*
 * function_cache.h - a module's list of functions, computed once per
 * module and shared by the processes of a session through a folder of
 * cache files (see function_cache.c).
 */
#ifndef CALLTRACE_PATCH_FUNCTION_CACHE_H
#define CALLTRACE_PATCH_FUNCTION_CACHE_H

#include "elf_functions.h"

#include <limits.h>
#include <stddef.h>
#include <sys/uio.h>

/* Where the list came from. */
enum function_cache_source {
	FUNCTIONS_FROM_CACHE,  /* the folder's cache file for the module */
	FUNCTIONS_DECODED,     /* the same, with every entry's decoding */
	FUNCTIONS_LISTED,      /* listed from the file, and put in the cache */
	FUNCTIONS_LISTED_ONLY, /* listed from the file; not cached (no folder, or
				  it could not be written) */
	FUNCTIONS_REJECTED,    /* the cache file was corrupt or not the module's:
				  ignored, listed from the file (and the cache
				  file replaced) */
};

/* elf_functions_each (same calls of `each`, same *facts, whose
 * with_eh_frame the caller sets), through the cache folder `dir` (NULL or
 * "": none): the functions of a module whose cache file is there come from
 * it; else they are listed from the file and the cache file is written.
 * *source (optional) says which.  0, or -1 when the file cannot be read as
 * 64-bit ELF. */
int function_cache_each(const char *dir, const char *path, elf_function_fn each, void *ctx,
			struct elf_file_facts *facts, enum function_cache_source *source);

/* Decodes the entry of every function of the module at `path` whose list
 * is in the cache folder `dir` (`decode` fills a patch_decoded from the
 * function), and puts the decodings in its cache file, for the later
 * processes of the session (FUNCTIONS_DECODED).  0, or -1. */
typedef void (*function_decode_fn)(const struct elf_function *f, struct patch_decoded *out,
				   void *ctx);
int function_cache_decode(const char *dir, const char *path, const struct elf_file_facts *facts,
			  function_decode_fn decode, void *ctx);

/* ---- for the folder's other files of a module (ran_cache.c) ---- */

#define FUNCTION_CACHE_KEY_MAX 128
/* The module's key (its build-id and size, or its path, inode, size and
 * time) and the name of its file `<dir>/<key>.<suffix>`; 0, or -1 when
 * there is no folder or the module cannot be read. */
int function_cache_name(const char *dir, const char *path, int with_eh_frame, const char *suffix,
			char key[FUNCTION_CACHE_KEY_MAX], char file[PATH_MAX]);
/* Between function_cache_keep_key(1) and (0), the key of a module is
 * worked out once for its files (its functions, what ran, its code: one
 * module's start-up), not once each: each is an open and four reads. */
void function_cache_keep_key(int on);
/* Writes `file` from `n` pieces, through a temporary file created with
 * O_EXCL (no link followed) and renamed into place; 0, or -1 (also when
 * the file would pass RLIMIT_FSIZE: the write would kill the program). */
int function_cache_write_file(const char *file, const struct iovec *parts, int n);
/* The checksum the folder's files keep of their bodies. */
uint64_t function_cache_checksum(const void *data, size_t len);

#endif
