/*
 * function_cache.c - a module's list of functions (elf_functions.c: its
 * symbols, or a stripped file's .eh_frame), computed once per module and
 * shared by the processes of a session: the first process that lists a
 * module writes the list into a cache file of the session's folder, the
 * later ones (every `bash` a script starts) map that file read-only and
 * walk it.  The second process that lists a module (a module run again)
 * decodes the entry of every function (patch_decode) into the file, so
 * that the later ones patch their first calls from it without loading a
 * decoder; those keep the file mapped (read-only, shared) for its
 * decodings.
 *
 * A cache file is named after the module: its build-id and size, or, with
 * no build-id, a hash of its path with its inode, size and modification
 * time; and whether .eh_frame's entries were asked for.  It is written
 * under a temporary name created with O_EXCL (no symbolic link followed,
 * mode 0666 less the umask) and renamed into place, so that a reader sees
 * a whole file or none.  A reader trusts nothing: the magic, the version,
 * the module's key, the sizes, a checksum of the whole body, and every
 * name's offset are checked; a file that fails is ignored (the list comes
 * from the module's file) and replaced.
 *
 * Nothing here calls malloc: it runs inside the traced process, whose
 * malloc may be its own.
 */
#include "function_cache.h"
#include "patch.h"
#include "../utils/file_size_limit.h"

#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#define CACHE_MAGIC "CTFUNCS"
#define CACHE_VERSION 5
#define KEY_MAX FUNCTION_CACHE_KEY_MAX

struct cache_header {
	char magic[8];
	uint32_t version, header_size;
	char key[KEY_MAX]; /* the module's, NUL-terminated */
	uint64_t entry;	   /* elf_file_facts */
	uint32_t instrumented, with_eh_frame;
	uint32_t decoded, unused; /* every entry's decoding is there */
	uint64_t count;		  /* entries */
	uint64_t names_size;	  /* bytes of names, after the entries */
	uint64_t checksum;	  /* FNV-1a of the entries and names */
};

struct cache_entry {
	uint64_t address, size, padding;
	uint64_t name; /* offset in the names */
	struct patch_decoded decoded;
};

static uint64_t fnv1a(uint64_t hash, const void *data, size_t len)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < len; i++)
		hash = (hash ^ p[i]) * 0x100000001b3ull;
	return hash;
}

#define FNV_START 0xcbf29ce484222325ull

/* The body's checksum: four lanes over 8-byte words, each word added and
 * the lane multiplied by an odd number (one-to-one: any change of a word
 * changes its lane), so that the four run side by side (every process
 * checks every file it uses: bash's list is 250 KB); the lanes folded
 * into one, then the bytes after the last whole block one by one. */
static uint64_t checksum(uint64_t hash, const uint8_t *p, size_t len)
{
	const uint64_t odd = 0x9e3779b97f4a7c15ull;
	uint64_t a = hash, b = hash ^ 1, c = hash ^ 2, d = hash ^ 3, w[4];
	size_t i = 0;
	for (; i + sizeof(w) <= len; i += sizeof(w)) {
		memcpy(w, p + i, sizeof(w));
		a = (a + w[0]) * odd;
		b = (b + w[1]) * odd;
		c = (c + w[2]) * odd;
		d = (d + w[3]) * odd;
	}
	const uint64_t lanes[4] = {a, b, c, d};
	for (int k = 0; k < 4; k++) {
		hash = (hash ^ lanes[k] ^ len) * 0x100000001b3ull;
		hash ^= hash >> 29;
	}
	return fnv1a(hash, p + i, len - i);
}

/* ---- the module's key --------------------------------------------------- */

/* Its GNU build-id from the notes its program headers point at, as hex
 * into `out`; 0, or -1 when it has none. */
static int build_id_hex(int fd, char *out, size_t len)
{
	Elf64_Ehdr eh;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum > 64)
		return -1;
	Elf64_Phdr ph[64];
	size_t bytes = (size_t)eh.e_phnum * sizeof(Elf64_Phdr);
	if (pread(fd, ph, bytes, (off_t)eh.e_phoff) != (ssize_t)bytes)
		return -1;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		uint8_t notes[1024];
		if (ph[i].p_type != PT_NOTE)
			continue;
		size_t size =
		    ph[i].p_filesz < sizeof(notes) ? (size_t)ph[i].p_filesz : sizeof(notes);
		ssize_t got = pread(fd, notes, size, (off_t)ph[i].p_offset);
		for (size_t at = 0; got > 0 && at + sizeof(Elf64_Nhdr) <= (size_t)got;) {
			const Elf64_Nhdr *n = (const Elf64_Nhdr *)(notes + at);
			size_t name_at = at + sizeof(*n),
			       desc_at = name_at + ((n->n_namesz + 3) & ~3u);
			if (desc_at + n->n_descsz > (size_t)got)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    memcmp(notes + name_at, "GNU", 4) == 0 && n->n_descsz * 2 + 1 <= len &&
			    n->n_descsz > 0) {
				for (uint32_t b = 0; b < n->n_descsz; b++)
					snprintf(out + 2 * b, 3, "%02x", notes[desc_at + b]);
				return 0;
			}
			at = desc_at + ((n->n_descsz + 3) & ~3u);
		}
	}
	return -1;
}

/* The module's key: "b<build-id>-<size>", or "p<path hash>-<inode>-<size>-
 * <mtime>" when it has no build-id; and whether .eh_frame is asked for. */
static int module_key(const char *path, int with_eh_frame, char *key, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	char id[2 * 64 + 1];
	int rc = fstat(fd, &st);
	int n;
	if (rc == 0 && build_id_hex(fd, id, sizeof(id)) == 0)
		n = snprintf(key, len, "b%s-%llx-%c", id, (unsigned long long)st.st_size,
			     with_eh_frame ? 'e' : 's');
	else
		n = snprintf(key, len, "p%016llx-%llx-%llx-%llx.%09ld-%c",
			     (unsigned long long)fnv1a(FNV_START, path, strlen(path)),
			     (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
			     (unsigned long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
			     with_eh_frame ? 'e' : 's');
	close(fd);
	return rc == 0 && n > 0 && (size_t)n < len ? 0 : -1;
}

/* ---- reading a cache file --------------------------------------------------- */

/* Whether the mapped cache file `map` of `size` bytes is whole, the
 * module's (`key`) and sound. */
static int cache_valid(const uint8_t *map, size_t size, const char *key)
{
	const struct cache_header *h = (const struct cache_header *)map;
	if (size < sizeof(*h) || memcmp(h->magic, CACHE_MAGIC, sizeof(h->magic)) != 0 ||
	    h->version != CACHE_VERSION || h->header_size != sizeof(*h) ||
	    strncmp(h->key, key, sizeof(h->key)) != 0 ||
	    h->count > size / sizeof(struct cache_entry))
		return 0;
	size_t body = size - sizeof(*h);
	if (h->count * sizeof(struct cache_entry) + h->names_size != body || h->names_size == 0)
		return 0;
	const uint8_t *names = map + sizeof(*h) + h->count * sizeof(struct cache_entry);
	if (names[h->names_size - 1] != '\0' ||
	    checksum(checksum(FNV_START, map + sizeof(*h), body - h->names_size), names,
		     h->names_size) != h->checksum)
		return 0;
	const struct cache_entry *e = (const struct cache_entry *)(map + sizeof(*h));
	for (uint64_t i = 0; i < h->count; i++) {
		const struct patch_decoded *d = &e[i].decoded;
		if (e[i].name >= h->names_size ||
		    (h->decoded && (d->verdict >= PATCH_VERDICTS || d->n > PATCH_DECODED_INSNS ||
				    d->displaced > PATCH_DISPLACED_MAX)))
			return 0;
	}
	return 1;
}

/* The cache file of the module at `path` mapped, when it is there and
 * sound: its size in *size; NULL when not, and *bad = 1 when it is there
 * but not sound. */
static const uint8_t *map_cache(const char *file, const char *key, size_t *size, int *bad)
{
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	*bad = 0;
	if (fd < 0)
		return NULL;
	struct stat st;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	*bad = 1;
	if (map == MAP_FAILED)
		return NULL;
	*size = (size_t)st.st_size;
	if (cache_valid(map, *size, key)) {
		*bad = 0;
		return map;
	}
	munmap(map, *size);
	return NULL;
}

/* After walking the cache file `file`: 2 when it has the decodings (it
 * stays mapped for them), else 1; 0 when there is none, -1 when it is not
 * sound (ignored). */
static int read_cache(const char *file, const char *key, elf_function_fn each, void *ctx,
		      struct elf_file_facts *facts)
{
	size_t size;
	int bad;
	const uint8_t *map = map_cache(file, key, &size, &bad);
	if (!map)
		return bad ? -1 : 0;
	const struct cache_header *h = (const struct cache_header *)map;
	const struct cache_entry *e = (const struct cache_entry *)(h + 1);
	const char *names = (const char *)(e + h->count);
	facts->entry = h->entry;
	facts->instrumented = (int)h->instrumented;
	facts->count = h->count;
	for (uint64_t i = 0; each && i < h->count; i++) {
		struct elf_function f = {e[i].address, e[i].size, e[i].padding, names + e[i].name,
					 h->decoded ? &e[i].decoded : NULL};
		each(&f, ctx);
	}
	if (h->decoded)
		return 2;
	munmap((void *)map, size);
	return 1;
}

/* ---- listing and writing ------------------------------------------------------ */

/* A buffer that grows in anonymous pages. */
struct grow {
	uint8_t *data;
	size_t used, room;
	int failed;
};

static void grow_add(struct grow *g, const void *bytes, size_t len)
{
	if (g->failed)
		return;
	if (g->used + len > g->room) {
		size_t room = g->room ? g->room : 64 << 10;
		while (room < g->used + len)
			room *= 2;
		void *p = g->data ? mremap(g->data, g->room, room, MREMAP_MAYMOVE)
				  : mmap(NULL, room, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			g->failed = 1;
			return;
		}
		g->data = p;
		g->room = room;
	}
	memcpy(g->data + g->used, bytes, len);
	g->used += len;
}

static void grow_free(struct grow *g)
{
	if (g->data)
		munmap(g->data, g->room);
}

struct listing {
	elf_function_fn each;
	void *ctx;
	struct grow entries, names;
};

static void list_one(const struct elf_function *f, void *data)
{
	struct listing *l = data;
	struct cache_entry e = {f->address, f->size, f->padding, l->names.used, {0}};
	grow_add(&l->entries, &e, sizeof(e));
	grow_add(&l->names, f->name, strlen(f->name) + 1);
	if (l->each)
		l->each(f, l->ctx);
}

static int write_all(int fd, const void *data, size_t len)
{
	const uint8_t *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int function_cache_write_file(const char *file, const struct iovec *parts, int n)
{
	uint64_t size = 0;
	for (int i = 0; i < n; i++)
		size += parts[i].iov_len;
	if (!within_file_size_limit(size))
		return -1;
	char temp[PATH_MAX];
	if (snprintf(temp, sizeof(temp), "%s.%ld.tmp", file, (long)getpid()) >= (int)sizeof(temp))
		return -1;
	int fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	int rc = 0;
	for (int i = 0; rc == 0 && i < n; i++)
		rc = write_all(fd, parts[i].iov_base, parts[i].iov_len);
	if (close(fd) < 0)
		rc = -1;
	if (rc == 0)
		rc = rename(temp, file);
	if (rc < 0)
		unlink(temp);
	return rc;
}

/* Writes the list into `file`, through a temporary file renamed into
 * place; 0 or -1. */
static int write_cache(const char *file, const char *key, struct listing *l,
		       const struct elf_file_facts *facts, int decoded)
{
	grow_add(&l->names, "", 1); /* the names end in a NUL */
	if (l->entries.failed || l->names.failed)
		return -1;
	struct cache_header h = {.magic = CACHE_MAGIC,
				 .version = CACHE_VERSION,
				 .header_size = sizeof(h),
				 .entry = facts->entry,
				 .instrumented = (uint32_t)facts->instrumented,
				 .with_eh_frame = (uint32_t)facts->with_eh_frame,
				 .decoded = (uint32_t)decoded,
				 .count = l->entries.used / sizeof(struct cache_entry),
				 .names_size = l->names.used};
	snprintf(h.key, sizeof(h.key), "%s", key);
	h.checksum = checksum(checksum(FNV_START, l->entries.data, l->entries.used), l->names.data,
			      l->names.used);
	struct iovec parts[3] = {
	    {&h, sizeof(h)}, {l->entries.data, l->entries.used}, {l->names.data, l->names.used}};
	return function_cache_write_file(file, parts, 3);
}

static struct {
	int on, known, with_eh_frame;
	char path[PATH_MAX], key[KEY_MAX];
} kept;

void function_cache_keep_key(int on)
{
	kept.on = on;
	kept.known = 0;
}

/* module_key, or the one kept for the module being started. */
static int key_of(const char *path, int with_eh_frame, char key[KEY_MAX])
{
	if (kept.on && kept.known && kept.with_eh_frame == with_eh_frame &&
	    strcmp(kept.path, path) == 0) {
		memcpy(key, kept.key, KEY_MAX);
		return 0;
	}
	if (module_key(path, with_eh_frame, key, KEY_MAX) < 0)
		return -1;
	if (kept.on && strlen(path) < sizeof(kept.path)) {
		strcpy(kept.path, path);
		memcpy(kept.key, key, KEY_MAX);
		kept.with_eh_frame = with_eh_frame;
		kept.known = 1;
	}
	return 0;
}

int function_cache_name(const char *dir, const char *path, int with_eh_frame, const char *suffix,
			char key[FUNCTION_CACHE_KEY_MAX], char file[PATH_MAX])
{
	return dir && *dir && key_of(path, with_eh_frame, key) == 0 &&
		       snprintf(file, PATH_MAX, "%s/%s.%s", dir, key, suffix) < PATH_MAX
		   ? 0
		   : -1;
}

static int cache_file(const char *dir, const char *path, int with_eh_frame, char key[KEY_MAX],
		      char file[PATH_MAX])
{
	return function_cache_name(dir, path, with_eh_frame, "functions", key, file);
}

uint64_t function_cache_checksum(const void *data, size_t len)
{
	return checksum(FNV_START, data, len);
}

int function_cache_each(const char *dir, const char *path, elf_function_fn each, void *ctx,
			struct elf_file_facts *facts, enum function_cache_source *source)
{
	struct elf_file_facts ignored = {0};
	enum function_cache_source unused;
	if (!facts)
		facts = &ignored;
	if (!source)
		source = &unused;
	*source = FUNCTIONS_LISTED_ONLY;
	char key[KEY_MAX], file[PATH_MAX];
	if (cache_file(dir, path, facts->with_eh_frame, key, file) < 0)
		return elf_functions_each(path, each, ctx, facts);
	int found = read_cache(file, key, each, ctx, facts);
	if (found > 0) {
		*source = found == 2 ? FUNCTIONS_DECODED : FUNCTIONS_FROM_CACHE;
		return 0;
	}
	struct listing l = {.each = each, .ctx = ctx};
	int rc = elf_functions_each(path, list_one, &l, facts);
	if (rc == 0 && !l.entries.failed && !l.names.failed &&
	    write_cache(file, key, &l, facts, 0) == 0)
		*source = FUNCTIONS_LISTED;
	if (found < 0)
		*source = FUNCTIONS_REJECTED;
	grow_free(&l.entries);
	grow_free(&l.names);
	return rc;
}

int function_cache_decode(const char *dir, const char *path, const struct elf_file_facts *facts,
			  function_decode_fn decode, void *ctx)
{
	char key[KEY_MAX], file[PATH_MAX];
	size_t size;
	int bad;
	const uint8_t *map = cache_file(dir, path, facts->with_eh_frame, key, file) == 0
				 ? map_cache(file, key, &size, &bad)
				 : NULL;
	if (!map)
		return -1;
	const struct cache_header *h = (const struct cache_header *)map;
	const struct cache_entry *e = (const struct cache_entry *)(h + 1);
	const char *names = (const char *)(e + h->count);
	struct listing l = {0};
	for (uint64_t i = 0; !h->decoded && i < h->count; i++) {
		struct cache_entry copy = e[i];
		struct elf_function f = {e[i].address, e[i].size, e[i].padding, names + e[i].name,
					 NULL};
		decode(&f, &copy.decoded, ctx);
		grow_add(&l.entries, &copy, sizeof(copy));
	}
	grow_add(&l.names, names, (size_t)h->names_size - 1);
	struct elf_file_facts kept = {h->entry, (int)h->instrumented, (int)h->with_eh_frame,
				      h->count};
	int rc = !h->decoded && !l.entries.failed && !l.names.failed
		     ? write_cache(file, key, &l, &kept, 1)
		     : -1;
	grow_free(&l.entries);
	grow_free(&l.names);
	munmap((void *)map, size);
	return rc;
}
