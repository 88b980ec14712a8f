/*
 * kernel_rights.c - find the tracepoint ids in tracefs (mounted or not),
 * say in one line what is missing when the kernel refuses the events, and
 * what the kernel offers for tracing its own functions.
 */
#include "kernel_rights.h"
#include "perf_events.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const tracefs_places[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

/* The number in file `dir`/`name`, or -1 with errno. */
static long read_number(const char *dir, const char *name)
{
	char path[256], buf[32];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int e = errno;
	close(fd);
	if (n <= 0) {
		errno = n < 0 ? e : EINVAL;
		return -1;
	}
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static int ids_in(const char *dir, uint32_t *enter, uint32_t *exit)
{
	long a = read_number(dir, "events/raw_syscalls/sys_enter/id");
	long b = a < 0 ? -1 : read_number(dir, "events/raw_syscalls/sys_exit/id");
	if (a < 0 || b < 0)
		return -1;
	*enter = (uint32_t)a;
	*exit = (uint32_t)b;
	return 0;
}

/* tracefs not mounted: mount it in a mount namespace of a child's own,
 * which leaves the machine's mounts as they were, and read the ids there.
 * 0, or an errno. */
static int ids_from_private_mount(uint32_t *enter, uint32_t *exit)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return errno;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return EAGAIN;
	}
	if (pid == 0) {
		uint32_t ids[2];
		close(p[0]);
		if (unshare(CLONE_NEWNS) < 0 ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount("nodev", tracefs_places[0], "tracefs", 0, NULL) < 0 ||
		    ids_in(tracefs_places[0], &ids[0], &ids[1]) < 0)
			_exit(errno & 0x7f);
		_exit(write(p[1], ids, sizeof(ids)) == sizeof(ids) ? 0 : EIO);
	}
	close(p[1]);
	uint32_t ids[2];
	ssize_t got = read(p[0], ids, sizeof(ids));
	close(p[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(ids))
		return WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : EIO;
	*enter = ids[0];
	*exit = ids[1];
	return 0;
}

int perf_tracepoint_ids(uint32_t *enter, uint32_t *exit, char *err, size_t errlen)
{
	int denied = 0;
	for (size_t i = 0; i < sizeof(tracefs_places) / sizeof(*tracefs_places); i++) {
		if (ids_in(tracefs_places[i], enter, exit) == 0)
			return 0;
		denied |= errno == EACCES || errno == EPERM;
	}
	int mount_err = denied ? 0 : ids_from_private_mount(enter, exit);
	if (!denied && mount_err == 0)
		return 0;
	if (denied)
		snprintf(err, errlen,
			 "system calls not recorded: tracefs, where the raw_syscalls tracepoints "
			 "are, is readable by root only (run as root)");
	else if (mount_err == EPERM || mount_err == EACCES)
		snprintf(err, errlen,
			 "system calls not recorded: tracefs, where the raw_syscalls tracepoints "
			 "are, is not mounted and mounting it needs root (CAP_SYS_ADMIN; or as "
			 "root: mount -t tracefs nodev /sys/kernel/tracing)");
	else
		snprintf(err, errlen,
			 "system calls not recorded: this kernel has no raw_syscalls tracepoints "
			 "(tracefs: %s)",
			 strerror(mount_err));
	return -1;
}

static int paranoid_level(void)
{
	errno = 0;
	long v = read_number("/proc/sys/kernel", "perf_event_paranoid");
	return v == -1 && errno ? 2 : (int)v;
}

void kernel_rights_explain(int errnum, const char *what, char *err, size_t errlen)
{
	if (errnum == EACCES || errnum == EPERM)
		snprintf(err, errlen,
			 "%s not recorded: the kernel's tracepoints need root or CAP_PERFMON "
			 "(perf_event_paranoid is %d; -1 opens them to every user)",
			 what, paranoid_level());
	else if (errnum == EMFILE || errnum == ENFILE)
		snprintf(err, errlen,
			 "%s not recorded: too many open files for the per-CPU events (ulimit -n)",
			 what);
	else
		snprintf(err, errlen, "%s not recorded: perf_event_open: %s", what,
			 strerror(errnum));
}

static int file_has_word(const char *path, const char *word)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (char *p = strtok(buf, " \n"); p; p = strtok(NULL, " \n"))
		if (strcmp(p, word) == 0)
			return 1;
	return 0;
}

void kernel_offers(char *out, size_t len)
{
	struct stat st;
	int kprobes = stat("/sys/bus/event_source/devices/kprobe", &st) == 0;
	int graph = 0;
	for (size_t i = 0; i < sizeof(tracefs_places) / sizeof(*tracefs_places); i++) {
		char path[256];
		snprintf(path, sizeof(path), "%s/available_tracers", tracefs_places[i]);
		graph |= file_has_word(path, "function_graph");
		snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_places[i]);
		kprobes |= stat(path, &st) == 0;
	}
	snprintf(out, len,
		 "kernel functions: %s (kprobes %s, function_graph tracer %s); system calls and "
		 "off-CPU intervals come from tracepoints",
		 kprobes || graph ? "the kernel could trace them, calltrace does not yet"
				  : "cannot be recorded on this kernel",
		 kprobes ? "present" : "absent", graph ? "present" : "absent");
}
