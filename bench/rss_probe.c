/*
 * rss_probe.c - preloaded into every benchmarked program to measure its own
 * peak memory, whatever tracer process runs around it.
 *
 * At exit it appends "MAXRSS_KIB EXE" to the file named by BENCH_RSS_FILE:
 * ru_maxrss of the process itself (a high-water mark, so the peak of the
 * whole run) and the executable's path, which tells the traced program's
 * line from the tracer's (the tracer loads the probe too).
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((destructor, no_instrument_function)) static void report_rss(void)
{
	const char *path = getenv("BENCH_RSS_FILE");
	if (!path || !*path)
		return;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	dprintf(fd, "%ld %s\n", ru.ru_maxrss, exe);
	close(fd);
}
