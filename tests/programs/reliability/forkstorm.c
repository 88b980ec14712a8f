/*
 * forkstorm.c - a process forking many children.  Usage: forkstorm
 * CHILDREN CALLS KILLED.
 *
 * Child i (0-based) of the first CHILDREN calls fork_work() CALLS + i
 * times (each calling fork_leaf() once), prints one line and exits with
 * status i % 50 (child_main returns it).  Then KILLED more children call fork_work() without end;
 * once each has made 1000 calls the parent kills them all with SIGKILL.
 * The parent prints whether every child ended as expected.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long fork_leaf(unsigned long x)
{
	return x * 2654435761u;
}

static unsigned long fork_work(unsigned long i)
{
	return fork_leaf(i) ^ i;
}

static int child_main(unsigned long index, unsigned long calls)
{
	unsigned long sum = 0;
	for (unsigned long i = 0; i < calls + index; i++)
		sum += fork_work(i);
	char line[128];
	int n = snprintf(line, sizeof(line), "child %lu: fork_work %lu sum %lu\n", index,
			 calls + index, sum);
	ssize_t unused = write(1, line, (size_t)n);
	(void)unused;
	return (int)(index % 50);
}

static void endless_child(int ready)
{
	for (unsigned long i = 0;; i++) {
		fork_work(i);
		if (i == 1000) {
			ssize_t unused = write(ready, "r", 1);
			(void)unused;
		}
	}
}

static int run_children(unsigned long n, unsigned long calls)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	int bad = 0;
	fflush(stdout);
	for (unsigned long i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			exit(child_main(i, calls));
		if (pids[i] < 0)
			bad++;
	}
	for (unsigned long i = 0; i < n; i++) {
		int status;
		if (pids[i] > 0 && (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
				    WEXITSTATUS(status) != (int)(i % 50)))
			bad++;
	}
	free(pids);
	return bad;
}

static int run_killed(unsigned long n)
{
	pid_t *pids = calloc(n, sizeof(*pids));
	int ready[2], bad = 0;
	if (pipe(ready) < 0)
		return 1;
	fflush(stdout);
	for (unsigned long i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			endless_child(ready[1]);
	}
	char c;
	for (unsigned long i = 0; i < n; i++)
		if (read(ready[0], &c, 1) != 1)
			bad++;
	for (unsigned long i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (unsigned long i = 0; i < n; i++) {
		int status;
		if (waitpid(pids[i], &status, 0) < 0 || !WIFSIGNALED(status) ||
		    WTERMSIG(status) != SIGKILL)
			bad++;
	}
	free(pids);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: forkstorm CHILDREN CALLS KILLED\n");
		return 2;
	}
	unsigned long n = strtoul(argv[1], NULL, 10), calls = strtoul(argv[2], NULL, 10);
	unsigned long killed = strtoul(argv[3], NULL, 10);
	int bad = run_children(n, calls);
	printf("%lu children exited: %s\n", n, bad ? "not as expected" : "as expected");
	bad = run_killed(killed);
	printf("%lu children killed: %s\n", killed, bad ? "not as expected" : "as expected");
	return 0;
}
