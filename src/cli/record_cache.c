/*
 * record_cache.c - the folder where the processes of a recording session
 * share what each module's file gives (its list of functions: see
 * src/patch/function_cache.c), so that a script starting a hundred
 * processes of one program lists its functions once.  Made private
 * (mkdtemp: mode 0700) under TMPDIR or /tmp, named to the runtime by
 * CALLTRACE_FUNCTION_CACHE, and removed with what it holds when the
 * recording ends.
 */
#include "record.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char *record_cache_open(void)
{
	const char *tmp = getenv("TMPDIR");
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	size_t len = strlen(tmp) + sizeof("/calltrace-functions.XXXXXX");
	char *dir = malloc(len);
	if (!dir)
		return NULL;
	snprintf(dir, len, "%s/calltrace-functions.XXXXXX", tmp);
	if (!mkdtemp(dir)) {
		free(dir);
		return NULL;
	}
	setenv("CALLTRACE_FUNCTION_CACHE", dir, 1);
	return dir;
}

void record_cache_close(char *dir)
{
	if (!dir)
		return;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (d) {
		for (struct dirent *e; (e = readdir(d));)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				unlinkat(fd, e->d_name, 0);
		closedir(d);
	} else if (fd >= 0) {
		close(fd);
	}
	rmdir(dir);
	free(dir);
}
