/*
 * test_ran_cache.c - the session's lists of the functions that ran
 * (src/patch/ran_cache.c): a list written is read back whole; a list is
 * the module's own (another module, or the same file under another key,
 * finds none); and a list that is not sound is ignored: unsorted,
 * repeated, a changed address, cut short, grown, a symbolic link, a
 * folder in its place.
 */
#include "../../src/patch/eh_frame_functions.c"
#include "../../src/patch/elf_functions.c"
#include "../../src/patch/function_cache.c"
#include "../../src/patch/ran_cache.c"

#include <stdlib.h>

#include "check.h"

static char dir[PATH_MAX], file[PATH_MAX], module[PATH_MAX];

static int read_count(const char *path, int with_eh_frame)
{
	struct ran_list l;
	if (ran_cache_read(dir, path, with_eh_frame, &l) < 0)
		return -1;
	int n = (int)l.count;
	ran_cache_release(&l);
	return n;
}

/* Flips a byte of the file at `offset` from its end. */
static void poke_from_end(long offset)
{
	FILE *f = fopen(file, "r+b");
	fseek(f, -offset, SEEK_END);
	int c = fgetc(f);
	fseek(f, -offset, SEEK_END);
	fputc(c ^ 0x40, f);
	fclose(f);
}

static void write_list(const uint64_t *a, size_t n)
{
	CHECK(ran_cache_write(dir, module, 1, a, n) == 0, "cannot write a list");
}

int main(int argc, char **argv)
{
	(void)argc;
	realpath(argv[0], module);
	snprintf(dir, sizeof(dir), "/tmp/test_ran_cache.XXXXXX");
	CHECK(mkdtemp(dir) != NULL, "no folder");
	char key[FUNCTION_CACHE_KEY_MAX];
	CHECK(function_cache_name(dir, module, 1, "ran", key, file) == 0, "no name");
	CHECK(strstr(file, ".ran") && strncmp(file, dir, strlen(dir)) == 0, "named %s", file);

	struct ran_list l;
	CHECK(ran_cache_read(dir, module, 1, &l) < 0 && l.count == 0 && !l.map, "a list from none");
	CHECK(ran_cache_read(NULL, module, 1, &l) < 0, "a list without a folder");

	const uint64_t a[] = {0x1040, 0x1100, 0x2a00, 0x7ff0};
	write_list(a, 4);
	CHECK(ran_cache_read(dir, module, 1, &l) == 0 && l.count == 4, "not read back");
	CHECK(l.count == 4 && memcmp(l.address, a, sizeof(a)) == 0, "other addresses read back");
	ran_cache_release(&l);
	CHECK(!l.map && !l.count, "not released");

	/* Another module's, or the module without .eh_frame's entries: none. */
	CHECK(read_count("/bin/sh", 1) < 0, "a list for another module");
	CHECK(read_count(module, 0) < 0, "a list under the other key");

	/* Not sound: ignored. */
	const uint64_t unsorted[] = {0x2000, 0x1000}, twice[] = {0x1000, 0x1000};
	write_list(unsorted, 2);
	CHECK(read_count(module, 1) < 0, "an unsorted list read");
	write_list(twice, 2);
	CHECK(read_count(module, 1) < 0, "a list with an address twice read");
	write_list(a, 4);
	poke_from_end(3);
	CHECK(read_count(module, 1) < 0, "a changed list read");
	write_list(a, 4);
	CHECK(truncate(file, 8 * 3 + (off_t)sizeof(struct ran_header) - 1) == 0, "truncate");
	CHECK(read_count(module, 1) < 0, "a list cut short read");
	write_list(a, 4);
	FILE *f = fopen(file, "ab");
	fputc(0, f);
	fclose(f);
	CHECK(read_count(module, 1) < 0, "a grown list read");

	/* A link in its place, to a sound list: not followed. */
	char other[PATH_MAX + 8];
	write_list(a, 4);
	snprintf(other, sizeof(other), "%s.real", file);
	CHECK(rename(file, other) == 0 && symlink(other, file) == 0, "link");
	CHECK(read_count(module, 1) < 0, "a list read through a link");
	unlink(file);
	unlink(other);
	CHECK(mkdir(file, 0700) == 0, "folder");
	CHECK(read_count(module, 1) < 0, "a folder read as a list");
	rmdir(file);

	/* The empty list is a list. */
	write_list(a, 0);
	CHECK(read_count(module, 1) == 0, "the empty list not read");
	unlink(file);
	rmdir(dir);
	return CHECK_SUMMARY("test_ran_cache");
}
