/*
 * ran_cache.h - which functions of a module ran in the session's
 * processes so far, kept beside its list of functions in the session's
 * cache folder (see ran_cache.c).
 */
#ifndef CALLTRACE_PATCH_RAN_CACHE_H
#define CALLTRACE_PATCH_RAN_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* A module's functions that ran: their addresses as its list of functions
 * gives them (from the module's start), ascending, each once. */
struct ran_list {
	const uint64_t *address;
	size_t count;
	void *map; /* what holds them: release with ran_cache_release */
	size_t map_size;
};

/* The list of the module at `path` from the folder `dir` into *out; 0, or
 * -1 (*out empty) when there is none, or it is not sound (ignored). */
int ran_cache_read(const char *dir, const char *path, int with_eh_frame, struct ran_list *out);
void ran_cache_release(struct ran_list *list);
/* Writes the list of the module at `path`: `count` addresses, ascending,
 * each once (a list there is replaced whole).  0, or -1. */
int ran_cache_write(const char *dir, const char *path, int with_eh_frame, const uint64_t *address,
		    size_t count);

#endif
