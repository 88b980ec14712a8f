/*
 * tool.c - running the calltrace tool from inside the traced program: to
 * write the JSON call tree when the session ends (session_end.c), and to
 * say which calls were open at a crash (crash.c).
 *
 * The tool is found once, at start: CALLTRACE_TOOL, else bin/calltrace
 * beside the runtime library's lib/ directory (../bin/calltrace, or
 * ../../bin/calltrace for lib/calltrace/), else `calltrace` on PATH.
 *
 * Running it must work at exit and inside a crash handler: the child is
 * made with a bare clone system call (no fork handlers, no malloc, no
 * SIGCHLD for the program's handler to see), and execs the tool at once
 * with an empty environment, so that it is neither preloaded nor recorded
 * into the session.  The caller waits for it.
 */
#include "../runtime.h"
#include "../../utils/big_table.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define TOOL_ARGS_MAX 16

static char tool_path[PATH_MAX] BIG_TABLE;
static int tool_named; /* by CALLTRACE_TOOL */

static int executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* bin/calltrace beside the directory this library is in. */
static int find_beside_library(void)
{
	Dl_info info;
	if (!dladdr((void *)runtime_tool_find, &info) || !info.dli_fname)
		return 0;
	const char *slash = strrchr(info.dli_fname, '/');
	if (!slash)
		return 0;
	int dir_len = (int)(slash - info.dli_fname);
	static const char *const relative[] = {"../bin/calltrace", "../../bin/calltrace"};
	for (size_t i = 0; i < sizeof(relative) / sizeof(relative[0]); i++) {
		snprintf(tool_path, sizeof(tool_path), "%.*s/%s", dir_len, info.dli_fname,
			 relative[i]);
		if (executable(tool_path))
			return 1;
	}
	return 0;
}

static int find_on_path(void)
{
	const char *dirs = runtime_getenv("PATH");
	for (const char *d = dirs; d && *d;) {
		size_t n = strcspn(d, ":");
		snprintf(tool_path, sizeof(tool_path), "%.*s/calltrace", (int)n, n ? d : ".");
		if (executable(tool_path))
			return 1;
		d += n + (d[n] == ':');
	}
	return 0;
}

void runtime_tool_find(void)
{
	const char *env = runtime_getenv("CALLTRACE_TOOL");
	if (env && *env) {
		snprintf(tool_path, sizeof(tool_path), "%s", env);
		if (!executable(tool_path))
			tool_path[0] = '\0';
		tool_named = 1;
		return;
	}
	if (!find_beside_library() && !find_on_path())
		tool_path[0] = '\0';
}

const char *runtime_tool_missing(void)
{
	if (tool_path[0])
		return NULL;
	return tool_named
		   ? "the program CALLTRACE_TOOL names cannot be run"
		   : "the calltrace tool is neither beside libcalltrace.so (../bin/calltrace) "
		     "nor on PATH (set CALLTRACE_TOOL)";
}

const char *runtime_tool_path(void)
{
	return tool_path[0] ? tool_path : NULL;
}

/* In the child: nothing but system calls, then the tool. */
static __attribute__((noreturn)) void exec_tool(const char *const args[], int stdout_fd)
{
	char *argv[TOOL_ARGS_MAX + 2];
	char *envp[] = {NULL};
	size_t n = 0;
	argv[n++] = tool_path;
	for (size_t i = 0; args[i] && n <= TOOL_ARGS_MAX; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	if (stdout_fd >= 0 && stdout_fd != 1)
		syscall(SYS_dup3, stdout_fd, 1, 0);
	/* The program's other descriptors (a pipe someone waits on) are not
	 * the tool's to hold open. */
	syscall(SYS_close_range, 3u, ~0u, 0u);
	syscall(SYS_execve, tool_path, argv, envp);
	syscall(SYS_exit, 127);
	__builtin_unreachable();
}

/* The exec gives the child SIGCHLD back as its exit signal: it is held
 * while the tool runs, so that no handler of the program's reaps it. */
static void hold_sigchld(sigset_t *saved)
{
	sigset_t chld;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, &chld, saved);
}

/* Like fork(), with no fork handlers and no signal at the end (SIGCHLD
 * held).  qemu-user takes no other end signal than SIGCHLD: there the child
 * ends with it, and `quiet_chld` says to take that SIGCHLD back after the
 * wait (unless one was pending already: it is the program's). */
static long clone_for_tool(int *quiet_chld)
{
	*quiet_chld = 0;
	long pid = syscall(SYS_clone, 0, NULL, NULL, NULL, NULL);
	if (pid < 0 && errno == EINVAL) {
		sigset_t pending;
		sigpending(&pending);
		*quiet_chld = !sigismember(&pending, SIGCHLD);
		pid = syscall(SYS_clone, SIGCHLD, NULL, NULL, NULL, NULL);
	}
	return pid;
}

static void take_back_sigchld(int quiet_chld)
{
	sigset_t chld;
	struct timespec now = {0, 0};
	if (!quiet_chld)
		return;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	while (sigtimedwait(&chld, NULL, &now) < 0 && errno == EINTR)
		;
}

/* Waits for the tool; its exit status.  A program whose SIGCHLD is ignored
 * has it reaped by the kernel: then it is taken to have done its work. */
static int wait_tool(pid_t pid)
{
	int status = 0;
	while (waitpid(pid, &status, __WALL) < 0) {
		if (errno == ECHILD)
			return 0;
		if (errno != EINTR)
			return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Copies the tool's output from `fd` to stderr, each line after
 * "calltrace: ", as the runtime's other lines; until the tool closes it. */
static void relay_lines(int fd)
{
	char in[512], out[sizeof(in) + 16];
	size_t used = 0;
	int line_start = 1;
	ssize_t n;
	while ((n = read(fd, in, sizeof(in))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		used = 0;
		for (ssize_t i = 0; i < n; i++) {
			if (line_start) {
				memcpy(out + used, "calltrace: ", 11);
				used += 11;
			}
			out[used++] = in[i];
			line_start = in[i] == '\n';
			if (used > sizeof(out) - 12 || i == n - 1) {
				ssize_t unused = write(2, out, used);
				(void)unused;
				used = 0;
			}
		}
	}
}

int runtime_tool_run_relayed(const char *const args[])
{
	int fds[2];
	if (!tool_path[0] || pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	int rc = -1;
	sigset_t saved;
	hold_sigchld(&saved);
	int quiet_chld;
	long pid = clone_for_tool(&quiet_chld);
	if (pid == 0)
		exec_tool(args, fds[1]);
	close(fds[1]);
	if (pid > 0) {
		relay_lines(fds[0]);
		rc = wait_tool((pid_t)pid);
		take_back_sigchld(quiet_chld);
	}
	close(fds[0]);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return rc;
}

int runtime_tool_run(const char *const args[], int stdout_fd)
{
	if (!tool_path[0])
		return -1;
	sigset_t saved;
	hold_sigchld(&saved);
	int quiet_chld;
	long pid = clone_for_tool(&quiet_chld);
	if (pid == 0)
		exec_tool(args, stdout_fd);
	int rc = pid < 0 ? -1 : wait_tool((pid_t)pid);
	if (pid > 0)
		take_back_sigchld(quiet_chld);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	return rc;
}
