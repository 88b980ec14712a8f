/*
 * image.c - whether this process image is recorded, and by which engine,
 * decided by each image at its start from the image itself, whatever its
 * parent was.
 *
 * CALLTRACE_NO_FOLLOW=1 (`record --no-follow`): only the process that
 * `calltrace record` started is recorded, across its own execs; its
 * children, forked or spawned, run unrecorded, and an exec'd one leaves
 * the runtime out of its environment.
 * CALLTRACE_PROGRAMS=GLOB[:GLOB...] (`record --program`): only the images
 * whose program matches one of the patterns are recorded; the others run
 * unrecorded, and pass the session on to their children.  A pattern with a
 * `/` is matched against the program's path, any other against its file
 * name; as the kernel resolved it (/proc/self/exe), as it was started
 * (argv[0]), and as execve was given it (AT_EXECFN: a script's own path,
 * where the other two name its interpreter).
 *
 * A program built with -finstrument-functions is recorded by its hooks,
 * when they are the runtime's (not in a process `calltrace attach` came
 * into: its hooks are the C library's empty ones); a program without them
 * by the in-process engine (patch_engine.c), when CALLTRACE_PATCH is on.
 */
#include "../runtime.h"
#include "../../patch/elf_functions.h"
#include "../../utils/big_table.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <fnmatch.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

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

/* Whether the pattern (`len` bytes) matches one of the program's names. */
static int matches(const char *pattern, size_t len, const char *const *names, size_t n)
{
	char glob[PATH_MAX];
	if (len == 0 || len >= sizeof(glob))
		return 0;
	memcpy(glob, pattern, len);
	glob[len] = '\0';
	int path = memchr(glob, '/', len) != NULL;
	for (size_t i = 0; i < n; i++)
		if (names[i] && fnmatch(glob, path ? names[i] : file_name(names[i]), 0) == 0)
			return 1;
	return 0;
}

static char program_path[PATH_MAX] BIG_TABLE;
static pthread_once_t program_path_once = PTHREAD_ONCE_INIT;

static void read_program_path(void)
{
	ssize_t n = readlink("/proc/self/exe", program_path, sizeof(program_path) - 1);
	program_path[n > 0 ? n : 0] = '\0';
}

const char *runtime_program_path(void)
{
	pthread_once(&program_path_once, read_program_path);
	return program_path;
}

/* Where the image's arguments lie: the kernel put their strings one after
 * the other, the memory /proc/self/cmdline reads (NULL: not known). */
static const char *arguments;
static size_t arguments_len;

void runtime_image_arguments(int argc, char **argv)
{
	arguments = NULL;
	if (argc <= 0 || !argv || !argv[0])
		return;
	const char *end = argv[0];
	for (int i = 0; i < argc; i++) {
		if (argv[i] != end) /* moved by someone before us: asked of the kernel */
			return;
		end += strlen(end) + 1;
	}
	arguments = argv[0];
	arguments_len = (size_t)(end - argv[0]);
}

size_t runtime_command_line(char *buf, size_t len)
{
	if (arguments) {
		size_t n = arguments_len < len ? arguments_len : len;
		memcpy(buf, arguments, n);
		return n;
	}
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, len);
	close(fd);
	return n > 0 ? (size_t)n : 0;
}

/* The program's path (/proc/self/exe) and argv[0]. */
static void program_names(char *exe, char *argv0, size_t len)
{
	snprintf(exe, len, "%s", runtime_program_path());
	size_t n = runtime_command_line(argv0, len - 1);
	argv0[n] = '\0';
}

/* The path execve was given (AT_EXECFN), from the root: a script's own,
 * where /proc/self/exe and argv[0] name its interpreter.  (No realpath: it
 * may allocate, and the program's malloc is not the runtime's to call.) */
static void exec_path(char *out, size_t len)
{
	const char *fn = (const char *)getauxval(AT_EXECFN);
	out[0] = '\0';
	if (!fn || !*fn)
		return;
	if (fn[0] == '/' || !getcwd(out, len)) {
		snprintf(out, len, "%s", fn);
		return;
	}
	while (fn[0] == '.' && fn[1] == '/')
		for (fn += 2; *fn == '/';)
			fn++;
	size_t n = strlen(out);
	snprintf(out + n, len - n, "%s%s", n && out[n - 1] == '/' ? "" : "/", fn);
}

/* Whether the program is one of CALLTRACE_PROGRAMS' `list`.  Its names'
 * buffers are its own (noinline): the start-up of every image does not run
 * below them. */
static __attribute__((noinline)) int program_listed(const char *list)
{
	char exe[PATH_MAX], argv0[PATH_MAX], execfn[PATH_MAX];
	program_names(exe, argv0, sizeof(exe));
	exec_path(execfn, sizeof(execfn));
	const char *names[] = {exe, argv0, execfn};
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ":");
		if (matches(p, len, names, sizeof(names) / sizeof(names[0])))
			return 1;
		p += len + (p[len] == ':');
	}
	return 0;
}

static int program_chosen(void)
{
	const char *list = runtime_getenv("CALLTRACE_PROGRAMS");
	return !list || !*list || program_listed(list);
}

/* Read at the image's start: the program may change its environment. */
int runtime_image_follows_children(void)
{
	static int follows = -1;
	if (follows < 0)
		follows = !env_on("CALLTRACE_NO_FOLLOW");
	return follows;
}

/* LD_PRELOAD without the runtime's own path, into `out` ("LD_PRELOAD=..."). */
static void preload_without_runtime(const char *preload, char *out, size_t len)
{
	Dl_info self;
	const char *runtime = dladdr((void *)preload_without_runtime, &self) ? self.dli_fname : "";
	size_t n = (size_t)snprintf(out, len, "LD_PRELOAD=");
	for (const char *p = preload; *p && n < len;) {
		size_t word = strcspn(p, ": ");
		if (word && (strlen(runtime) != word || strncmp(p, runtime, word) != 0))
			n += (size_t)snprintf(out + n, len - n, "%s%.*s", n > 11 ? ":" : "",
					      (int)word, p);
		p += word + (p[word] != '\0');
	}
}

/* A child that --no-follow leaves out gets the environment it would have
 * had: no CALLTRACE_* variables, the runtime out of LD_PRELOAD, so that its
 * own children do not even load it.  Nothing allocated: unsetenv, and
 * putenv of a variable that exists. */
static void leave_environment(void)
{
	static char preload[PATH_MAX * 2] BIG_TABLE;
	if (!environ || !environ[0])
		return; /* before the C library set it up */
	for (char **e = environ; *e;) {
		char name[64];
		size_t len = strcspn(*e, "=");
		if (strncmp(*e, "CALLTRACE_", 10) != 0 || len >= sizeof(name)) {
			e++;
			continue;
		}
		memcpy(name, *e, len);
		name[len] = '\0';
		unsetenv(name); /* *e is the next entry now */
	}
	const char *old = getenv("LD_PRELOAD");
	if (!old)
		return;
	preload_without_runtime(old, preload, sizeof(preload));
	if (preload[11] == '\0')
		unsetenv("LD_PRELOAD");
	else
		putenv(preload);
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
		if (!started && parent_pid != (uint32_t)getpid()) {
			leave_environment();
			return 0;
		}
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
		/* The program's undefined dynamic symbols (a program built
		 * with -finstrument-functions asks for the hooks), read in
		 * memory; its file's symbols where they cannot be. */
		const struct link_map *program = _r_debug.r_map;
		int asks = program ? runtime_loaded_needs(program->l_addr, program->l_ld,
							  "__cyg_profile_func_enter")
				   : -1;
		struct elf_file_facts facts = {0};
		if (asks < 0)
			asks = elf_functions_each("/proc/self/exe", NULL, NULL, &facts) == 0 &&
			       facts.instrumented;
		has_hooks = asks && runtime_hooks_are_ours();
		known = 1;
	}
	return has_hooks;
}

int runtime_image_patched(void)
{
	return runtime_patch_init && env_on("CALLTRACE_PATCH") && !runtime_image_has_hooks();
}
