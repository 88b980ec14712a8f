/*
 * ran_cache.c - which functions of a module ran in the processes of a
 * session so far.  A script's every `bash` calls much the same 200 of
 * bash's 2,300 functions; a process that finds the list of those patches
 * them at start, with the module's other marks, rather than one trap each
 * at their first calls (patch_lazy.c).  A process that ran functions the
 * list lacks writes the union when it ends.
 *
 * The file `<key>.ran` sits beside the module's `<key>.functions`
 * (function_cache.c names both): a header (magic, version, the module's
 * key, the count, a checksum) and the addresses.  It is written under a
 * temporary name and renamed into place; a reader checks everything and
 * ignores a file that fails.  A list that is wrong costs time only: a
 * function in it that does not run is patched for nothing, one missing is
 * patched at its first call.
 */
#include "ran_cache.h"
#include "function_cache.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RAN_MAGIC "CTRAN"
#define RAN_VERSION 2
#define RAN_MAX (1u << 20) /* addresses a list may hold */

struct ran_header {
	char magic[8];
	uint32_t version, header_size;
	char key[FUNCTION_CACHE_KEY_MAX]; /* the module's, NUL-terminated */
	uint64_t count;			  /* addresses */
	uint64_t checksum;		  /* of the addresses */
};

static int ran_valid(const uint8_t *map, size_t size, const char *key)
{
	const struct ran_header *h = (const struct ran_header *)map;
	if (size < sizeof(*h) || memcmp(h->magic, RAN_MAGIC, sizeof(RAN_MAGIC)) != 0 ||
	    h->version != RAN_VERSION || h->header_size != sizeof(*h) ||
	    strncmp(h->key, key, sizeof(h->key)) != 0 ||
	    h->count != (size - sizeof(*h)) / sizeof(uint64_t) ||
	    sizeof(*h) + h->count * sizeof(uint64_t) != size)
		return 0;
	const uint64_t *a = (const uint64_t *)(h + 1);
	for (uint64_t i = 1; i < h->count; i++)
		if (a[i] <= a[i - 1])
			return 0;
	return function_cache_checksum(a, h->count * sizeof(uint64_t)) == h->checksum;
}

/* Reads the file at `fd` of `size` bytes into memory of its own (not a
 * mapping of the file: a file cut short meanwhile would fault); NULL when
 * it cannot. */
static void *read_whole(int fd, size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	for (size_t done = 0; done < size;) {
		ssize_t n = pread(fd, (uint8_t *)p + done, size - done, (off_t)done);
		if (n <= 0) {
			munmap(p, size);
			return NULL;
		}
		done += (size_t)n;
	}
	return p;
}

int ran_cache_read(const char *dir, const char *path, int with_eh_frame, struct ran_list *out)
{
	memset(out, 0, sizeof(*out));
	char key[FUNCTION_CACHE_KEY_MAX], file[PATH_MAX];
	if (function_cache_name(dir, path, with_eh_frame, "ran", key, file) < 0)
		return -1;
	int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	void *map = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    (size_t)st.st_size >= sizeof(struct ran_header) &&
	    (size_t)st.st_size <= sizeof(struct ran_header) + RAN_MAX * sizeof(uint64_t))
		map = read_whole(fd, (size_t)st.st_size);
	close(fd);
	if (!map)
		return -1;
	if (!ran_valid(map, (size_t)st.st_size, key)) {
		munmap(map, (size_t)st.st_size);
		return -1;
	}
	const struct ran_header *h = map;
	*out =
	    (struct ran_list){(const uint64_t *)(h + 1), (size_t)h->count, map, (size_t)st.st_size};
	return 0;
}

void ran_cache_release(struct ran_list *list)
{
	if (list->map)
		munmap(list->map, list->map_size);
	memset(list, 0, sizeof(*list));
}

int ran_cache_write(const char *dir, const char *path, int with_eh_frame, const uint64_t *address,
		    size_t count)
{
	struct ran_header h = {.magic = RAN_MAGIC,
			       .version = RAN_VERSION,
			       .header_size = sizeof(h),
			       .count = count,
			       .checksum =
				   function_cache_checksum(address, count * sizeof(uint64_t))};
	char file[PATH_MAX];
	if (function_cache_name(dir, path, with_eh_frame, "ran", h.key, file) < 0)
		return -1;
	struct iovec parts[2] = {{&h, sizeof(h)}, {(void *)address, count * sizeof(uint64_t)}};
	return function_cache_write_file(file, parts, 2);
}
