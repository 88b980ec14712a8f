/*
 * record_cache.c - the folder where the processes the in-process engine
 * patches share what each module's file gives (its list of functions,
 * their entries decoded: src/patch/function_cache.c; which of them ran:
 * src/patch/ran_cache.c), so that a script starting a hundred processes
 * of one program lists its functions once, and the next recording of it
 * starts where this one ended.  Named to the runtime by
 * CALLTRACE_FUNCTION_CACHE.
 *
 * By default the folder lasts (record_cache_lasting.c): the user's cache,
 * one folder per build of the runtime.  With --no-cache, or when there is
 * no such folder to be had, it is the recording's own: made private
 * (mkdtemp: mode 0700) under TMPDIR or /tmp, and removed with what it
 * holds when the recording ends.  The recording holds a lock on such a
 * folder's `session.lock` while it runs: a folder whose lock nobody holds
 * is one a killed recording left, and the next recording removes it.
 */
#include "record.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "calltrace-functions."
#define LOCK_NAME "session.lock"

static void remove_folder(int parent, const char *name)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				unlinkat(fd, e->d_name, 0);
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	unlinkat(parent, name, AT_REMOVEDIR);
}

/* Whether the folder `name` in `parent` is ours and its recording gone:
 * its lock file there, and free. */
static int left_behind(int parent, const char *name)
{
	struct stat st;
	if (fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return 0;
	char lock[NAME_MAX + sizeof("/" LOCK_NAME)];
	snprintf(lock, sizeof(lock), "%s/%s", name, LOCK_NAME);
	int fd = openat(parent, lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	int free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_;
}

/* Removes the folders that killed recordings left in `tmp`. */
static void remove_left_behind(const char *tmp)
{
	int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));)
		if (strncmp(e->d_name, PREFIX, sizeof(PREFIX) - 1) == 0 &&
		    left_behind(fd, e->d_name))
			remove_folder(fd, e->d_name);
	closedir(d);
}

/* The lock the recording holds while it runs (closed at its exit, never
 * inherited by the program: O_CLOEXEC).  Taken before the file has its
 * name: another recording never finds it free while this one runs. */
static void hold_lock(const char *dir)
{
	char path[PATH_MAX], temp[PATH_MAX];
	snprintf(path, sizeof(path), "%s/" LOCK_NAME, dir);
	snprintf(temp, sizeof(temp), "%s/" LOCK_NAME ".new", dir);
	int fd = open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (flock(fd, LOCK_EX) < 0 || rename(temp, path) < 0) {
		unlink(temp);
		close(fd);
	}
}

/* The recording's own folder, or NULL. */
static char *open_temporary(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	remove_left_behind(tmp);
	size_t len = strlen(tmp) + sizeof("/calltrace-functions.XXXXXX");
	char *dir = malloc(len);
	if (!dir)
		return NULL;
	snprintf(dir, len, "%s/" PREFIX "XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	hold_lock(dir);
	return dir;
}

void record_cache_open(struct record_cache *c, const char *runtime, int lasting)
{
	c->lasting = lasting;
	c->dir = lasting ? record_cache_lasting_open(runtime) : NULL;
	if (!c->dir) {
		c->lasting = 0;
		c->dir = open_temporary();
	}
	if (c->dir)
		setenv("CALLTRACE_FUNCTION_CACHE", c->dir, 1);
}

void record_cache_close(struct record_cache *c)
{
	if (!c->dir)
		return;
	if (c->lasting)
		record_cache_lasting_trim(c->dir);
	else
		remove_folder(AT_FDCWD, c->dir);
	free(c->dir);
	c->dir = NULL;
}
