/*
 * run_measure.c - runs one command and measures it for the benchmarks.
 *
 *   run_measure OUT ERR [NAME=VALUE...] PROG [ARGS...]
 *
 * Forks and execs PROG with the NAME=VALUE variables added to its
 * environment (so that an LD_PRELOAD reaches PROG, not this program), its
 * stdout going to the file OUT and its stderr to ERR (they may be the same
 * file), waits for it and prints one line on stdout:
 *
 *   ELAPSED_NS MAXRSS_KIB USER_NS SYS_NS
 *
 * MAXRSS is ru_maxrss of RUSAGE_CHILDREN: the peak resident set of the
 * largest process in the tree (for `calltrace record PROG` or `uftrace
 * record PROG`, that is the traced program unless the tracer itself is
 * bigger).  USER and SYS cover the whole tree.  Exits 0 when PROG exited
 * with status 0, else prints why on stderr and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long ns_of(struct timespec t)
{
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static long long ns_of_tv(struct timeval t)
{
	return (long long)t.tv_sec * 1000000000LL + (long long)t.tv_usec * 1000LL;
}

static int open_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fprintf(stderr, "run_measure: %s: %s\n", path, strerror(errno));
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: run_measure OUT ERR [NAME=VALUE...] PROG [ARGS...]\n");
		return 2;
	}
	int prog = 3;
	while (prog < argc && strchr(argv[prog], '=') && argv[prog][0] != '=')
		prog++;
	if (prog == argc) {
		fprintf(stderr, "run_measure: no program to run\n");
		return 2;
	}
	int out = open_output(argv[1]);
	int err = strcmp(argv[2], argv[1]) == 0 ? out : open_output(argv[2]);
	if (out < 0 || err < 0)
		return 2;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "run_measure: fork: %s\n", strerror(errno));
		return 2;
	}
	if (pid == 0) {
		dup2(out, STDOUT_FILENO);
		dup2(err, STDERR_FILENO);
		for (int i = 3; i < prog; i++)
			putenv(argv[i]);
		execvp(argv[prog], argv + prog);
		fprintf(stderr, "run_measure: %s: %s\n", argv[prog], strerror(errno));
		_exit(127);
	}
	int status;
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "run_measure: waitpid: %s\n", strerror(errno));
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(out);
	if (err != out)
		close(err);

	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);

	if (WIFSIGNALED(status)) {
		fprintf(stderr, "run_measure: %s killed by signal %d\n", argv[prog],
			WTERMSIG(status));
		return 1;
	}
	if (WEXITSTATUS(status) != 0) {
		fprintf(stderr, "run_measure: %s exited with %d\n", argv[prog],
			WEXITSTATUS(status));
		return 1;
	}
	printf("%lld %ld %lld %lld\n", ns_of(t1) - ns_of(t0), ru.ru_maxrss, ns_of_tv(ru.ru_utime),
	       ns_of_tv(ru.ru_stime));
	return 0;
}
