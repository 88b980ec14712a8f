/*
 * check_locate.c - what `calltrace check` looks up around an ELF file: its
 * separate debug info (the places elfutils searches, so that what check
 * says is what the views will find), the files its needed libraries
 * resolve to, and the Debian package a file came from.
 */
#include "check_locate.h"
#include "../arch/arch.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEBUG_ROOT "/usr/lib/debug"

/* The CRC-32 (IEEE, as zlib and .gnu_debuglink use it) of a whole file;
 * 0 and the sum, or -1 when it cannot be read. */
static int file_crc32(const char *path, uint32_t *out)
{
	static uint32_t table[256];
	if (table[1] == 0)
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint32_t crc = 0xffffffffu;
	unsigned char buf[65536];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			crc = table[(crc ^ buf[i]) & 0xff] ^ (crc >> 8);
	close(fd);
	if (n < 0)
		return -1;
	*out = crc ^ 0xffffffffu;
	return 0;
}

/* The folder of `path`, made absolute, into `dir`. */
static void folder_of(const char *path, char *dir, size_t len)
{
	char real[PATH_MAX];
	if (!realpath(path, real))
		snprintf(real, sizeof(real), "%s", path);
	char *slash = strrchr(real, '/');
	if (slash == real)
		snprintf(dir, len, "/");
	else if (slash)
		snprintf(dir, len, "%.*s", (int)(slash - real), real);
	else
		snprintf(dir, len, ".");
}

/* Whether the .gnu_debuglink file is at one of the usual places: where it
 * is (and whether its CRC matches) into *out. */
static int find_debuglink(const char *path, const struct elf_facts *f, struct debug_location *out)
{
	char dir[PATH_MAX], self[PATH_MAX];
	folder_of(path, dir, sizeof(dir));
	if (!realpath(path, self))
		self[0] = '\0';
	const char *formats[] = {"%s/%s", "%s/.debug/%s", DEBUG_ROOT "%s/%s"};
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		char candidate[PATH_MAX + 300], real[PATH_MAX];
		snprintf(candidate, sizeof(candidate), formats[i], dir, f->debuglink);
		if (!realpath(candidate, real) || strcmp(real, self) == 0)
			continue;
		uint32_t crc;
		if (file_crc32(real, &crc) < 0)
			continue;
		out->where = crc == f->debuglink_crc ? DEBUG_LINK : DEBUG_LINK_STALE;
		snprintf(out->path, sizeof(out->path), "%s", real);
		if (out->where == DEBUG_LINK)
			return 1;
	}
	return out->where == DEBUG_LINK_STALE;
}

void check_locate_debug(const char *path, const struct elf_facts *f, struct debug_location *out)
{
	memset(out, 0, sizeof(*out));
	if (f->has_debug_info) {
		out->where = DEBUG_IN_FILE;
		return;
	}
	if (f->has_debuglink && find_debuglink(path, f, out) && out->where == DEBUG_LINK)
		return;
	if (strlen(f->build_id) > 2) {
		char candidate[PATH_MAX];
		snprintf(candidate, sizeof(candidate), DEBUG_ROOT "/.build-id/%.2s/%s.debug",
			 f->build_id, f->build_id + 2);
		if (access(candidate, R_OK) == 0) {
			out->where = DEBUG_BUILD_ID;
			snprintf(out->path, sizeof(out->path), "%s", candidate);
		}
	}
}

/* Looks for `name` in the colon-separated folders `dirs` ($ORIGIN is
 * `origin`); 1 and the real path in `out` (PATH_MAX bytes) when found. */
static int search_folders(const char *dirs, const char *origin, const char *name, char *out)
{
	for (const char *d = dirs; d && *d;) {
		const char *colon = strchr(d, ':');
		size_t n = colon ? (size_t)(colon - d) : strlen(d);
		char dir[PATH_MAX];
		if (n > 0 && n < sizeof(dir)) {
			memcpy(dir, d, n);
			dir[n] = '\0';
			const char *rest = NULL;
			if (strncmp(dir, "$ORIGIN", 7) == 0)
				rest = dir + 7;
			else if (strncmp(dir, "${ORIGIN}", 9) == 0)
				rest = dir + 9;
			char candidate[PATH_MAX * 2 + 2];
			if (rest)
				snprintf(candidate, sizeof(candidate), "%s%s/%s", origin, rest,
					 name);
			else
				snprintf(candidate, sizeof(candidate), "%s/%s", dir, name);
			if (access(candidate, R_OK) == 0 && realpath(candidate, out))
				return 1;
		}
		d += n + (colon ? 1 : 0);
	}
	return 0;
}

int check_find_library(const char *name, const char *module_path, const struct elf_facts *f,
		       char *out, size_t len)
{
	char result[PATH_MAX];
	if (strchr(name, '/')) {
		if (!realpath(name, result))
			return -1;
		snprintf(out, len, "%s", result);
		return 0;
	}
	char origin[PATH_MAX];
	folder_of(module_path, origin, sizeof(origin));
	const char *rpath = f->runpath_is_rpath ? f->runpath : NULL;
	const char *runpath = f->runpath_is_rpath ? NULL : f->runpath;
	const char *order[] = {rpath, getenv("LD_LIBRARY_PATH"), runpath,
			       ARCH_LIBRARY_DIRS ":/usr/local/lib:/lib64:/usr/lib64:/lib:/usr/lib"};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (search_folders(order[i], origin, name, result)) {
			snprintf(out, len, "%s", result);
			return 0;
		}
	return -1;
}

/* Runs argv (no shell) with stdout into buf, stderr and stdin on
 * /dev/null; its exit status, or -1 when it could not run. */
static int run_capture(char *const argv[], char *buf, size_t len)
{
	int pipefd[2];
	if (len == 0 || pipe2(pipefd, O_CLOEXEC) < 0)
		return -1;
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 2);
		dup2(pipefd[1], 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	size_t got = 0;
	ssize_t n;
	char rest[4096];
	/* What does not fit is read and dropped, so that the child never blocks. */
	while ((n = got < len - 1 ? read(pipefd[0], buf + got, len - 1 - got)
				  : read(pipefd[0], rest, sizeof(rest))) > 0)
		if (got < len - 1)
			got += (size_t)n;
	buf[got] = '\0';
	close(pipefd[0]);
	int status;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* "libc6:amd64: /lib/..." (or "a, b: /path"): the first package's name. */
static int package_of_line(const char *line, char *pkg, size_t len)
{
	size_t n = strcspn(line, ":, \n");
	if (n == 0 || n >= len || strncmp(line, "diversion", 9) == 0)
		return -1;
	memcpy(pkg, line, n);
	pkg[n] = '\0';
	return 0;
}

int check_owner_package(const char *path, char *pkg, size_t len)
{
	char real[PATH_MAX], out[4096];
	if (!realpath(path, real))
		return -1;
	/* With a merged /usr, dpkg knows /lib/x.so as /lib/x.so, not /usr/lib/x.so. */
	const char *candidates[] = {real, strncmp(real, "/usr/", 5) == 0 ? real + 4 : NULL};
	for (size_t i = 0; i < 2; i++) {
		if (!candidates[i])
			continue;
		char *argv[] = {"dpkg-query", "-S", (char *)candidates[i], NULL};
		if (run_capture(argv, out, sizeof(out)) == 0 && package_of_line(out, pkg, len) == 0)
			return 0;
	}
	return -1;
}

void check_debug_package(const char *pkg, char *out, size_t len)
{
	char name[256], text[256];
	snprintf(name, sizeof(name), "%s-dbg", pkg);
	char *argv[] = {"apt-cache", "show", "--no-all-versions", name, NULL};
	if (run_capture(argv, text, sizeof(text)) == 0 && strncmp(text, "Package:", 8) == 0)
		snprintf(out, len, "%s", name);
	else
		snprintf(out, len, "%s-dbgsym", pkg);
}
