/*
 * env.c - the runtime's getenv.
 *
 * The runtime may start before libc has set up `environ`: a program whose
 * .preinit_array (or a malloc of its own, called by the loader) runs
 * instrumented code makes the first hook run that early.  Then the
 * environment is read from /proc/self/environ, which the kernel set up
 * before anything ran.
 *
 * A runtime that `calltrace attach` brought into a running process takes
 * its settings from the block the tool hands it (runtime_env_override), never
 * from the process's environment, which stays as it was.
 */
#include "../runtime.h"
#include "../../utils/big_table.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

static char initial_env[64 << 10] BIG_TABLE;
static size_t initial_env_len;
static int initial_env_read;

static void read_initial_env(void)
{
	int fd = open("/proc/self/environ", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n;
		while (initial_env_len < sizeof(initial_env) - 1 &&
		       (n = read(fd, initial_env + initial_env_len,
				 sizeof(initial_env) - 1 - initial_env_len)) > 0)
			initial_env_len += (size_t)n;
		close(fd);
	}
	initial_env[initial_env_len] = '\0';
	initial_env_read = 1;
}

static const char *initial_getenv(const char *name)
{
	if (!initial_env_read)
		read_initial_env();
	size_t name_len = strlen(name);
	for (size_t at = 0; at < initial_env_len;) {
		const char *entry = initial_env + at;
		size_t len = strnlen(entry, initial_env_len - at);
		if (len > name_len && entry[name_len] == '=' && memcmp(entry, name, name_len) == 0)
			return entry + name_len + 1;
		at += len + 1;
	}
	return NULL;
}

static const char *env_override; /* "NAME=value\0...\0\0", or NULL */

void runtime_env_override(const char *block)
{
	env_override = block;
}

static const char *override_getenv(const char *name)
{
	size_t name_len = strlen(name);
	for (const char *entry = env_override; *entry; entry += strlen(entry) + 1)
		if (strncmp(entry, name, name_len) == 0 && entry[name_len] == '=')
			return entry + name_len + 1;
	return NULL;
}

/* environ read directly: a program may have its own getenv (bash's looks
 * in its shell variables, which are not set up yet). */
static const char *environ_getenv(const char *name)
{
	size_t name_len = strlen(name);
	for (char **e = environ; *e; e++)
		if (strncmp(*e, name, name_len) == 0 && (*e)[name_len] == '=')
			return *e + name_len + 1;
	return NULL;
}

const char *runtime_getenv(const char *name)
{
	if (env_override)
		return override_getenv(name);
	if (environ && environ[0])
		return environ_getenv(name);
	return initial_getenv(name);
}
