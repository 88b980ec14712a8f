/*
 * code_cache.c - a module's code as the in-process engine leaves it at
 * start (every entry marked, the functions that ran before patched),
 * kept in a file of the session's cache folder: the later processes of
 * the module map that file over their code instead of writing into it,
 * so that its pages stay shared, none copied (patch_shared.c says when).
 *
 * The file is a header page (the module's key, where the code lies in
 * the module, the digest of the writes that made it), then the code.  It
 * is written under a temporary name and renamed into place
 * (function_cache_write_file), so that a reader sees a whole file or
 * none.  A file that is not the user's own, or whose size, key, place or
 * digest is not the one expected, is not used, and is replaced (but not
 * by every process of a recording: code_cache.h).  The
 * code itself is not checksummed: that would read every page each
 * process maps, the cost this file is there to save; the module's key
 * and the digest of every write name what it holds.
 *
 * Nothing here calls malloc: it runs inside the traced process.
 */
#include "code_cache.h"
#include "function_cache.h"

#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CODE_MAGIC "CTCODE"
#define CODE_VERSION 1
#define CODE_HEADER_SIZE 4096 /* the code starts on a page of its own */

struct code_header {
	char magic[8];
	uint32_t version, header_size;
	char key[FUNCTION_CACHE_KEY_MAX]; /* the module's, NUL-terminated */
	uint64_t offset;		  /* of the code: its address less the load bias */
	uint64_t length;		  /* bytes of code */
	uint64_t digest;		  /* of the writes that made it */
	uint64_t session;		  /* the recording that wrote it */
};

static int code_file(const char *dir, const struct code_cache_span *c,
		     char key[FUNCTION_CACHE_KEY_MAX], char file[PATH_MAX])
{
	return function_cache_name(dir, c->path, c->with_eh_frame, "code", key, file);
}

static int header_matches(const struct code_header *h, const char *key,
			  const struct code_cache_span *c)
{
	return memcmp(h->magic, CODE_MAGIC, sizeof(CODE_MAGIC)) == 0 &&
	       h->version == CODE_VERSION && h->header_size == CODE_HEADER_SIZE &&
	       strncmp(h->key, key, sizeof(h->key)) == 0 && h->offset == c->address - c->bias &&
	       h->length == c->length && h->digest == c->digest;
}

/* The file's code mapped somewhere (the caller moves it), or MAP_FAILED
 * with *found saying whether to write it. */
static void *map_file(const char *file, const char *key, const struct code_cache_span *c,
		      enum code_cache_found *found)
{
	*found = CODE_NONE;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return MAP_FAILED;
	struct stat st;
	struct code_header h;
	void *at = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	    memcmp(h.magic, CODE_MAGIC, sizeof(CODE_MAGIC)) == 0) {
		if ((uint64_t)st.st_size == CODE_HEADER_SIZE + c->length &&
		    header_matches(&h, key, c))
			at = mmap(NULL, c->length, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
				  CODE_HEADER_SIZE);
		else if (h.session == c->session)
			*found = CODE_KEEP;
	}
	close(fd);
	return at;
}

enum code_cache_found code_cache_map(const char *dir, const struct code_cache_span *c)
{
	char key[FUNCTION_CACHE_KEY_MAX], file[PATH_MAX];
	enum code_cache_found found;
	if (code_file(dir, c, key, file) < 0)
		return CODE_KEEP; /* no file to write either */
	void *at = map_file(file, key, c, &found);
	if (at == MAP_FAILED)
		return found;
	/* Mapped first where the kernel chose, then moved over the code in
	 * one step: a mapping refused (a folder mounted noexec) leaves the
	 * code as it was. */
	if (mremap(at, c->length, c->length, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)c->address) ==
	    MAP_FAILED) {
		munmap(at, c->length);
		return CODE_NONE;
	}
	return CODE_MAPPED;
}

int code_cache_write(const char *dir, const struct code_cache_span *c)
{
	char key[FUNCTION_CACHE_KEY_MAX], file[PATH_MAX];
	if (code_file(dir, c, key, file) < 0)
		return -1;
	static union {
		struct code_header h;
		char page[CODE_HEADER_SIZE];
	} header;
	memset(&header, 0, sizeof(header));
	memcpy(header.h.magic, CODE_MAGIC, sizeof(CODE_MAGIC));
	header.h.version = CODE_VERSION;
	header.h.header_size = CODE_HEADER_SIZE;
	memcpy(header.h.key, key, strnlen(key, sizeof(header.h.key) - 1));
	header.h.offset = c->address - c->bias;
	header.h.length = c->length;
	header.h.digest = c->digest;
	header.h.session = c->session;
	struct iovec parts[2] = {{&header, sizeof(header)}, {(void *)c->address, c->length}};
	return function_cache_write_file(file, parts, 2);
}
