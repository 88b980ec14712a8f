/*
 * image.c - whether this process image is recorded, and by which engine,
 * decided by each image at its start from the image itself, whatever its
 * parent was.
 *
 * CALLTRACE_NO_FOLLOW=1 (`record --no-follow`): only the process that
 * `calltrace record` started is recorded, across its own execs; its
 * children, forked or spawned, run unrecorded.
 * CALLTRACE_PROGRAMS=GLOB[:GLOB...] (`record --program`): only the images
 * whose program matches one of the patterns are recorded; the others run
 * unrecorded, and pass the session on to their children.  A pattern with a
 * `/` is matched against the program's path, any other against its file
 * name; both as the kernel resolved it (/proc/self/exe) and as it was
 * started (argv[0]).
 *
 * A program built with -finstrument-functions is recorded by its hooks,
 * when they are the runtime's (not in a process `calltrace attach` came
 * into: its hooks are the C library's empty ones); a program without them
 * by the in-process engine (patch_engine.c), when CALLTRACE_PATCH is on.
 */
#include "runtime.h"
#include "../patch/elf_functions.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static int env_on(const char *name)
{
	const char *v = runtime_getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static int matches(const char *pattern, size_t len, const char *exe, const char *argv0)
{
	char glob[PATH_MAX];
	if (len == 0 || len >= sizeof(glob))
		return 0;
	memcpy(glob, pattern, len);
	glob[len] = '\0';
	if (memchr(glob, '/', len))
		return fnmatch(glob, exe, 0) == 0 || fnmatch(glob, argv0, 0) == 0;
	return fnmatch(glob, file_name(exe), 0) == 0 || fnmatch(glob, file_name(argv0), 0) == 0;
}

/* The program's path (/proc/self/exe) and argv[0]. */
static void program_names(char *exe, char *argv0, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", exe, len - 1);
	exe[n > 0 ? n : 0] = '\0';
	argv0[0] = '\0';
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, argv0, len - 1);
	close(fd);
	argv0[n > 0 ? n : 0] = '\0';
}

static int program_chosen(void)
{
	const char *list = runtime_getenv("CALLTRACE_PROGRAMS");
	if (!list || !*list)
		return 1;
	char exe[PATH_MAX], argv0[PATH_MAX];
	program_names(exe, argv0, sizeof(exe));
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":");
		if (matches(p, len, exe, argv0))
			return 1;
		p += len + (p[len] == ':');
	}
	return 0;
}

/* Read at the image's start: the program may change its environment. */
int runtime_image_follows_children(void)
{
	static int follows = -1;
	if (follows < 0)
		follows = !env_on("CALLTRACE_NO_FOLLOW");
	return follows;
}

int runtime_image_recorded(int first, uint32_t parent_image, uint32_t parent_pid)
{
	if (runtime_attach_mode)
		return 1;
	int follows = runtime_image_follows_children();
	if (!first && !follows) {
		/* The process record started (its parent is the session's
		 * creator), or an exec of the process recorded. */
		int started = parent_image == 0 && (uint32_t)getppid() == parent_pid;
		if (!started && parent_pid != (uint32_t)getpid())
			return 0;
	}
	return program_chosen();
}

int runtime_hooks_are_ours(void)
{
	static int known, ours;
	if (!known) {
		Dl_info hooks, self;
		void *enter = dlsym(RTLD_DEFAULT, "__cyg_profile_func_enter");
		ours = enter && dladdr(enter, &hooks) &&
		       dladdr((void *)runtime_hooks_are_ours, &self) &&
		       hooks.dli_fbase == self.dli_fbase;
		known = 1;
	}
	return ours;
}

int runtime_image_has_hooks(void)
{
	static int known, has_hooks;
	if (!known) {
		struct elf_file_facts facts = {0};
		has_hooks = elf_functions_each("/proc/self/exe", NULL, NULL, &facts) == 0 &&
			    facts.instrumented && runtime_hooks_are_ours();
		known = 1;
	}
	return has_hooks;
}

int runtime_image_patched(void)
{
	return runtime_patch_init && env_on("CALLTRACE_PATCH") && !runtime_image_has_hooks();
}
