/*
 * trace_file.c - create and open trace files safely (see trace_file.h).
 *
 * A trace is made under a temporary name in its folder (O_CREAT|O_EXCL,
 * mode 0666 less the umask, locked), given its header by the writer, and
 * only then published under its name by a rename that replaces nothing.
 * So no name ever shows a half-made trace, no symbolic link is followed,
 * no file is truncated, and choosing a name and taking it is one atomic
 * step.  When the name is taken already:
 *   - by a trace a recording still writes (its processes hold a shared lock
 *     on it): the new trace takes the first free numbered name;
 *   - by a finished trace, or any other regular file of the user's: that
 *     file is renamed to the first free numbered name (held exclusively
 *     meanwhile, so that no two recordings move it), and the new trace
 *     takes the name; or, when asked to replace it, the new trace is
 *     renamed over it (rename never follows a symbolic link);
 *   - by a symbolic link, something that is not a regular file, or a file
 *     of another user: the name is refused.
 * Nothing here allocates: the runtime calls it inside the traced program.
 */
#include "trace_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define NUMBERED_MAX 100000 /* app.2.trace ... app.100000.trace */

int trace_file_lock(int fd, short type)
{
	struct flock fl = {.l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1};
	return fcntl(fd, F_OFD_SETLK, &fl);
}

void trace_file_numbered_name(char *out, size_t len, const char *path, int n)
{
	const char *base = strrchr(path, '/');
	const char *dot = strrchr(base ? base + 1 : path, '.');
	if (!dot || dot == (base ? base + 1 : path))
		snprintf(out, len, "%s.%d", path, n);
	else
		snprintf(out, len, "%.*s.%d%s", (int)(dot - path), path, n, dot);
}

int trace_file_create_temp(const char *path, char *temp, size_t len)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	if (!*base) {
		errno = EISDIR;
		return -1;
	}
	int dir_len = (int)(base - path);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	unsigned salt = (unsigned)ts.tv_nsec ^ ((unsigned)getpid() << 12);
	for (int attempt = 0; attempt < 100; attempt++) {
		snprintf(temp, len, "%.*s.%.200s.%08x.part", dir_len, path, base,
			 salt + (unsigned)attempt * 0x9e3779b9u);
		int fd = open(temp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			trace_file_lock(fd, F_WRLCK);
			return fd;
		}
		if (errno != EEXIST)
			return -1;
	}
	return -1;
}

/* rename(from, to) unless `to` exists (then -1 with EEXIST). */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* A file system without RENAME_NOREPLACE: link() replaces nothing. */
	if (link(from, to) < 0)
		return -1;
	unlink(from);
	return 0;
}

/* Renames `from` to the first free numbered name of `path`; N, or -1. */
static int rename_numbered(const char *from, const char *path, char *to, size_t len)
{
	for (int n = 2; n <= NUMBERED_MAX; n++) {
		trace_file_numbered_name(to, len, path, n);
		if (rename_noreplace(from, to) == 0)
			return n;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

static const char *not_regular(mode_t mode)
{
	if (S_ISLNK(mode))
		return "it is a symbolic link, and a trace is never written through one";
	if (S_ISDIR(mode))
		return "it is a directory: a trace must be a regular file";
	if (S_ISFIFO(mode))
		return "it is a FIFO: a trace must be a regular file";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "it is a device: a trace must be a regular file";
	if (S_ISSOCK(mode))
		return "it is a socket: a trace must be a regular file";
	return NULL;
}

enum { NAME_FREED, NAME_IN_USE, NAME_TAKEN };

/* Moves the file at `path`, held exclusively as `st`, to the first free
 * numbered name (its number in o->kept_previous).  0, or -1 with errno. */
static int keep_aside(const char *path, const struct stat *st, struct trace_file_outcome *o)
{
	char aside[4096];
	struct stat now;
	int n = rename_numbered(path, path, aside, sizeof(aside));
	if (n < 0)
		return -1;
	/* Renamed by path: if the name changed hands meanwhile, put it back. */
	if (lstat(aside, &now) < 0 || now.st_ino != st->st_ino || now.st_dev != st->st_dev)
		return rename_noreplace(aside, path);
	o->kept_previous = n;
	return 0;
}

/* The name `path` is taken: when no recording holds the file there, moves
 * it to a numbered name (NAME_FREED), or with `replace`, renames `temp`
 * over it (NAME_TAKEN: the new trace has the name); else says it is in use (NAME_IN_USE).  -1 with
 * errno (and o->refused) when the name may not be used. */
static int free_the_name(const char *path, const char *temp, int replace,
			 struct trace_file_outcome *o)
{
	struct stat st, now;
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? NAME_FREED : -1;
	o->refused = not_regular(st.st_mode);
	if (!o->refused && st.st_uid != geteuid())
		o->refused = "it belongs to another user, and a trace never replaces another "
			     "user's file";
	if (o->refused) {
		errno = EEXIST;
		return -1;
	}
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? NAME_FREED : -1;
	if (fstat(fd, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
		close(fd); /* replaced meanwhile: look again */
		return NAME_FREED;
	}
	if (trace_file_lock(fd, F_WRLCK) < 0 && (errno == EAGAIN || errno == EACCES)) {
		close(fd);
		return NAME_IN_USE;
	}
	int rc = replace ? rename(temp, path) : keep_aside(path, &st, o);
	int e = errno;
	if (replace && rc == 0)
		o->replaced_fd = fd;
	else
		close(fd);
	errno = e;
	if (rc < 0)
		return -1;
	return replace ? NAME_TAKEN : NAME_FREED;
}

int trace_file_publish(const char *temp, const char *path, int replace, char *chosen, size_t len,
		       struct trace_file_outcome *o)
{
	o->refused = NULL;
	o->kept_previous = 0;
	o->replaced_fd = -1;
	for (int attempt = 0; attempt < 1000; attempt++) {
		int state = rename_noreplace(temp, path) == 0 ? NAME_TAKEN : -1;
		if (state < 0 && errno != EEXIST)
			return -1;
		if (state < 0)
			state = free_the_name(path, temp, replace, o);
		if (state < 0)
			return -1;
		if (state == NAME_TAKEN) {
			snprintf(chosen, len, "%s", path);
			return 0;
		}
		if (state == NAME_IN_USE)
			return rename_numbered(temp, path, chosen, len) < 0 ? -1 : 0;
	}
	errno = EBUSY;
	return -1;
}

int trace_file_reopen(const char *path, uint64_t dev, uint64_t ino)
{
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    ((dev || ino) && ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino))) {
		close(fd);
		errno = ESTALE;
		return -1;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}
