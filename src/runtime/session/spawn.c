/*
 * spawn.c - children started with an environment of their own are traced
 * too.
 *
 * A child inherits the session through its environment: LD_PRELOAD brings
 * the runtime in, CALLTRACE_SESSION names the trace to append to, and the
 * other CALLTRACE_* variables carry the settings.  execv, execvp, system
 * and popen pass `environ` on, which has them.  A program that hands
 * execve, execvpe, fexecve or posix_spawn an environment of its own would
 * leave them out: these are wrapped to add the ones missing, and to bring
 * up to date a CALLTRACE_SESSION the program copied when it started (bash
 * keeps its own copy of the environment, which would make its children
 * say they came from bash's parent).  glibc's execl, execle, execlp, execv
 * and execvp call its execve inside, past the wrapper: they are wrapped as
 * well (execle hands an environment of its own; every exec adds the
 * functions that ran to the session's lists first).  Nothing is
 * allocated (a vfork child shares its parent's heap): the new list lives
 * on the stack, and points at the runtime's own strings.
 */
#include "../runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

#define CARRIED_MAX 32 /* variables added at most */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			const posix_spawnattr_t *, char *const[], char *const[]);

static execve_fn real_execve, real_execvpe;
static fexecve_fn real_fexecve;
static spawn_fn real_posix_spawn, real_posix_spawnp;

static int carried(const char *entry)
{
	return strncmp(entry, "CALLTRACE_", 10) == 0 || strncmp(entry, "LD_PRELOAD=", 11) == 0;
}

/* The session's variables as the image had them at start: a program may
 * clear its environment before it execs (`env -i`, clearenv), and its
 * children still belong to the session.  The strings stay where the
 * kernel put them. */
static char *carried_at_start[CARRIED_MAX];
static size_t carried_at_start_count;

static void keep_carried(void)
{
	carried_at_start_count = 0;
	for (size_t i = 0; environ && environ[i] && carried_at_start_count < CARRIED_MAX; i++)
		if (carried(environ[i]))
			carried_at_start[carried_at_start_count++] = environ[i];
}

/* Looked up at start-up: dlsym is not safe in a vfork child. */
void runtime_spawn_init(void)
{
	keep_carried();
	if (!real_execve)
		real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
	if (!real_execvpe)
		real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
	if (!real_fexecve)
		real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
	if (!real_posix_spawn)
		real_posix_spawn = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawn");
	if (!real_posix_spawnp)
		real_posix_spawnp = (spawn_fn)dlsym(RTLD_NEXT, "posix_spawnp");
}

/* Whether the first `n` entries of `list` set the variable of `entry`. */
static int has_variable(char *const list[], size_t n, const char *entry)
{
	size_t name_len = strcspn(entry, "=");
	for (size_t i = 0; i < n; i++)
		if (strncmp(list[i], entry, name_len) == 0 && list[i][name_len] == '=')
			return 1;
	return 0;
}

static size_t count(char *const envp[])
{
	size_t n = 0;
	while (envp && envp[n])
		n++;
	return n;
}

/* The image's own CALLTRACE_SESSION entry when `entry` is a stale one: the
 * one the image inherited, or an earlier image's of the same session (a
 * copy the program kept, as bash does, or made before it forked this
 * image: bash builds its children's environment before the fork); else
 * NULL.  A session of another trace (a `calltrace record` run inside
 * this one sets it for its child) is left alone. */
static char *fresh_session(const char *entry)
{
	const char *stale = runtime_session_inherited();
	const char *own = runtime_session_published();
	if (!own || strncmp(entry, "CALLTRACE_SESSION=", 18) != 0 || strcmp(entry, own) == 0)
		return NULL;
	if (stale && strcmp(entry, stale) == 0)
		return (char *)own;
	return runtime_session_same_trace(entry) ? (char *)own : NULL;
}

/* Fills `out` (room for count(envp) + CARRIED_MAX + 1) with envp, its
 * stale session entry brought up to date, and the session's variables it
 * lacks: those of environ, else those the image had at start; returns
 * envp itself when nothing changed (NULL, after clearenv, is empty).
 * envp may be environ itself: bash points environ at its own copy before
 * it execs. */
static char *const *session_env(char *const envp[], char **out)
{
	size_t n = count(envp), total, renewed = 0; /* NULL (clearenv): none */
	if (n)
		memcpy(out, envp, n * sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		char *fresh = fresh_session(out[i]);
		if (fresh) {
			out[i] = fresh;
			renewed++;
		}
	}
	total = n;
	for (size_t i = 0; envp != environ && environ && environ[i] && total - n < CARRIED_MAX; i++)
		if (carried(environ[i]) && !has_variable(out, total, environ[i]))
			out[total++] = environ[i];
	for (size_t i = 0; i < carried_at_start_count && total - n < CARRIED_MAX; i++) {
		char *kept = carried_at_start[i];
		if (!has_variable(out, total, kept)) {
			char *fresh = fresh_session(kept);
			out[total++] = fresh ? fresh : kept;
		}
	}
	out[total] = NULL;
	return total > n || renewed ? out : envp;
}

/* Before an exec: the image's end, and the session's environment. */
#define SESSION_ENV(envp)                                                                          \
	if (runtime_patch_image_ends_at_exec)                                                      \
		runtime_patch_image_ends_at_exec();                                                \
	char *room_[count(envp) + CARRIED_MAX + 1];                                                \
	char *const *env_ = session_env(envp, room_)

static int session_execve(const char *path, char *const argv[], char *const envp[])
{
	SESSION_ENV(envp);
	if (!real_execve)
		return (int)syscall(SYS_execve, path, argv, env_);
	return real_execve(path, argv, env_);
}

static int session_execvpe(const char *file, char *const argv[], char *const envp[])
{
	SESSION_ENV(envp);
	if (!real_execvpe) {
		errno = ENOSYS;
		return -1;
	}
	return real_execvpe(file, argv, env_);
}

RUNTIME_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return session_execve(path, argv, envp);
}

RUNTIME_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return session_execvpe(file, argv, envp);
}

RUNTIME_EXPORT int execv(const char *path, char *const argv[])
{
	return session_execve(path, argv, environ);
}

RUNTIME_EXPORT int execvp(const char *file, char *const argv[])
{
	return session_execvpe(file, argv, environ);
}

/* The arguments of an execl from `arg0` to their NULL: how many. */
static size_t list_length(const char *arg0, va_list ap)
{
	size_t n = 0;
	va_list copy;
	va_copy(copy, ap);
	for (const char *a = arg0; a; a = va_arg(copy, const char *))
		n++;
	va_end(copy);
	return n;
}

/* Fills `argv` (room for n + 1) with the `n` arguments from `arg0`, and
 * the NULL; `ap` is then past the NULL. */
static void list_fill(char **argv, size_t n, const char *arg0, va_list *ap)
{
	argv[0] = (char *)arg0;
	for (size_t i = 1; i < n; i++)
		argv[i] = va_arg(*ap, char *);
	if (n)
		(void)va_arg(*ap, char *); /* the NULL */
	argv[n] = NULL;
}

/* In an execl: argv_ on its stack from the arguments from `arg` to
 * their NULL; ap_ then past the NULL (execle's environment is next). */
#define LIST_ARGV(arg)                                                                             \
	va_list ap_;                                                                               \
	va_start(ap_, arg);                                                                        \
	size_t n_ = list_length(arg, ap_);                                                         \
	char *argv_[n_ + 1];                                                                       \
	list_fill(argv_, n_, arg, &ap_)

RUNTIME_EXPORT int execl(const char *path, const char *arg, ...)
{
	LIST_ARGV(arg);
	va_end(ap_);
	return session_execve(path, argv_, environ);
}

RUNTIME_EXPORT int execle(const char *path, const char *arg, ...)
{
	LIST_ARGV(arg);
	char *const *envp = va_arg(ap_, char *const *);
	va_end(ap_);
	return session_execve(path, argv_, envp);
}

RUNTIME_EXPORT int execlp(const char *file, const char *arg, ...)
{
	LIST_ARGV(arg);
	va_end(ap_);
	return session_execvpe(file, argv_, environ);
}

RUNTIME_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	SESSION_ENV(envp);
	if (!real_fexecve) {
		errno = ENOSYS;
		return -1;
	}
	return real_fexecve(fd, argv, env_);
}

RUNTIME_EXPORT int posix_spawn(pid_t *pid, const char *path,
			       const posix_spawn_file_actions_t *actions,
			       const posix_spawnattr_t *attr, char *const argv[],
			       char *const envp[])
{
	SESSION_ENV(envp);
	if (!real_posix_spawn)
		return ENOSYS;
	return real_posix_spawn(pid, path, actions, attr, argv, env_);
}

RUNTIME_EXPORT int posix_spawnp(pid_t *pid, const char *file,
				const posix_spawn_file_actions_t *actions,
				const posix_spawnattr_t *attr, char *const argv[],
				char *const envp[])
{
	SESSION_ENV(envp);
	if (!real_posix_spawnp)
		return ENOSYS;
	return real_posix_spawnp(pid, file, actions, attr, argv, env_);
}
