/*
 * record_cache_lasting.c - the module caches that outlive a recording, so
 * that the next recording of a program starts where the last one ended:
 * its functions listed, their entries decoded (no disassembler loaded),
 * the ones that ran patched at start.  The folder is
 * $XDG_CACHE_HOME/calltrace/<build-id of libcalltrace.so> (else
 * ~/.cache/calltrace/...): one per build of the runtime, whose decodings
 * are its own.
 *
 * The two folders that are calltrace's are made mode 0700 and must be
 * folders (not links), the user's, and writable by nobody else; else the
 * recording keeps its caches in a folder of its own (record_cache.c).
 * Recordings running at once share the folder as the processes of one
 * do: each file is written under a temporary name and renamed into
 * place, and checked whole before use.
 *
 * After a recording, the files of every runtime's folder are trimmed to
 * CACHE_MAX_BYTES: past it, the oldest (by modification) go until they
 * fill three quarters of it.  Temporary files a killed process left go
 * after an hour, and folders left empty (the current one stays).  The
 * walk looks at every file of the cache: it is made at most once every
 * TRIM_EVERY_SECONDS (the file .trimmed in the top folder says when it
 * last was), so that a script recording program after program does not
 * walk a full cache each time; what ten minutes of recordings add is
 * little beside the bound.
 */
#include "record.h"
#include "../symbols/symbols.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAX_BYTES (256ull << 20)
#define STALE_TEMP_SECONDS 3600
#define TRIM_EVERY_SECONDS 600
#define TRIMMED_STAMP ".trimmed"
#define TOP_NAME "calltrace"

/* Opens the folder `name` in `parent`, made (0700) when missing: -1
 * unless it is a folder, not a link, the user's and writable by nobody
 * else. */
static int own_folder(int parent, const char *name)
{
	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return -1;
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 022))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The user's cache folder's path into `out`: $XDG_CACHE_HOME when it is
 * absolute, else $HOME/.cache; 0, or -1 when there is none. */
static int base_path(char out[PATH_MAX])
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(out, PATH_MAX, "%s", xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, PATH_MAX, "%s/.cache", home);
	else
		return -1;
	return n > 0 && n < PATH_MAX - 200 ? 0 : -1;
}

char *record_cache_lasting_open(const char *runtime)
{
	struct elf_facts facts;
	char base[PATH_MAX];
	if (elf_file_facts(runtime, &facts) < 0 || !facts.build_id[0] || base_path(base) < 0)
		return NULL;
	mkdir(base, 0700); /* the user's cache folder, when there is none yet */
	int b = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int top = b >= 0 ? own_folder(b, TOP_NAME) : -1;
	int mine = top >= 0 ? own_folder(top, facts.build_id) : -1;
	if (b >= 0)
		close(b);
	if (top >= 0)
		close(top);
	if (mine < 0)
		return NULL;
	close(mine);
	char *dir = NULL;
	if (asprintf(&dir, "%s/" TOP_NAME "/%s", base, facts.build_id) < 0)
		return NULL;
	return dir;
}

/* ---- trimming ----------------------------------------------------------- */

/* A walk of the folder `fd` from its start (a dup shares its position). */
static DIR *walk(int fd)
{
	int copy = dup(fd);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;
	if (d)
		rewinddir(d);
	else if (copy >= 0)
		close(copy);
	return d;
}

struct cache_file {
	int64_t mtime_ns;
	uint64_t size;
	int folder; /* its folder's descriptor */
	char *name;
};

struct cache_walk {
	struct cache_file *files;
	size_t n, room;
	uint64_t bytes;
	int folders[256];
	size_t nfolders;
};

static int older_first(const void *a, const void *b)
{
	const struct cache_file *x = a, *y = b;
	return x->mtime_ns < y->mtime_ns ? -1 : x->mtime_ns > y->mtime_ns;
}

static int is_temporary(const char *name)
{
	size_t len = strlen(name);
	return len > 4 && strcmp(name + len - 4, ".tmp") == 0;
}

/* Notes the regular files of the folder `fd` (a stale temporary one goes
 * at once); 0, or -1 out of memory. */
static int walk_folder(struct cache_walk *w, int fd, time_t now)
{
	DIR *d = walk(fd);
	if (!d)
		return 0;
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d));) {
		struct stat st;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (is_temporary(e->d_name) && now - st.st_mtime > STALE_TEMP_SECONDS) {
			unlinkat(fd, e->d_name, 0);
			continue;
		}
		if (w->n == w->room) {
			size_t room = w->room ? 2 * w->room : 256;
			struct cache_file *f = realloc(w->files, room * sizeof(*f));
			if (!f) {
				rc = -1;
				break;
			}
			w->files = f;
			w->room = room;
		}
		char *name = strdup(e->d_name);
		if (!name) {
			rc = -1;
			break;
		}
		w->files[w->n++] = (struct cache_file){(int64_t)st.st_mtim.tv_sec * 1000000000 +
							   st.st_mtim.tv_nsec,
						       (uint64_t)st.st_size, fd, name};
		w->bytes += (uint64_t)st.st_size;
	}
	closedir(d);
	return rc;
}

/* Opens and walks every runtime's folder in `top`. */
static void walk_top(struct cache_walk *w, int top)
{
	DIR *d = walk(top);
	if (!d)
		return;
	time_t now = time(NULL);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.' ||
		    w->nfolders == sizeof(w->folders) / sizeof(w->folders[0]))
			continue;
		int fd = openat(top, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		w->folders[w->nfolders++] = fd;
		if (walk_folder(w, fd, now) < 0)
			break;
	}
	closedir(d);
}

/* Removes the folders of `top` left empty but `keep`. */
static void remove_empty(int top, const char *keep)
{
	DIR *d = walk(top);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));)
		if (e->d_name[0] != '.' && strcmp(e->d_name, keep) != 0)
			unlinkat(top, e->d_name, AT_REMOVEDIR); /* fails unless empty */
	closedir(d);
}

/* Whether the cache in `top` was trimmed less than TRIM_EVERY_SECONDS ago
 * (a stamp in the future, or not a file of the user's, says no). */
static int trimmed_lately(int top)
{
	struct stat st;
	time_t now = time(NULL);
	return fstatat(top, TRIMMED_STAMP, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
	       st.st_uid == geteuid() && st.st_mtime <= now &&
	       now - st.st_mtime < TRIM_EVERY_SECONDS;
}

/* Dates the stamp now (made when missing; never through a link, nor
 * waiting on a fifo put there). */
static void stamp_trimmed(int top)
{
	int fd = openat(top, TRIMMED_STAMP,
			O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	futimens(fd, NULL);
	close(fd);
}

void record_cache_lasting_trim(const char *dir)
{
	char top_path[PATH_MAX];
	const char *slash = strrchr(dir, '/');
	if (!slash || (size_t)(slash - dir) >= sizeof(top_path))
		return;
	memcpy(top_path, dir, (size_t)(slash - dir));
	top_path[slash - dir] = '\0';
	int top = open(top_path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return;
	if (trimmed_lately(top)) {
		close(top);
		return;
	}
	stamp_trimmed(top);
	struct cache_walk w = {0};
	walk_top(&w, top);
	if (w.bytes > CACHE_MAX_BYTES) {
		qsort(w.files, w.n, sizeof(*w.files), older_first);
		for (size_t i = 0; i < w.n && w.bytes > CACHE_MAX_BYTES / 4 * 3; i++)
			if (unlinkat(w.files[i].folder, w.files[i].name, 0) == 0)
				w.bytes -= w.files[i].size;
	}
	remove_empty(top, slash + 1);
	for (size_t i = 0; i < w.n; i++)
		free(w.files[i].name);
	free(w.files);
	for (size_t i = 0; i < w.nfolders; i++)
		close(w.folders[i]);
	close(top);
}
