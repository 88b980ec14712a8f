/*
 * spawner.c - starts three children every way a program does, and waits
 * for them: a fork that calls functions and exits, a fork that execs
 * TARGET, and a posix_spawn of TARGET.
 *
 * Usage: spawner TARGET
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int child_work(int x)
{
	return x * 2;
}

static void child_crash(void)
{
	*(volatile int *)NULL = child_work(21);
}

static pid_t fork_only(int crash)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (crash)
			child_crash();
		exit(child_work(21) == 42 ? 0 : 1);
	}
	return pid;
}

static pid_t fork_exec(char *target)
{
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {target, NULL};
		execv(target, argv);
		_exit(127);
	}
	return pid;
}

static pid_t spawn(char *target)
{
	pid_t pid = -1;
	char *argv[] = {target, NULL};
	return posix_spawn(&pid, target, NULL, NULL, argv, environ) == 0 ? pid : -1;
}

static int wait_all(const pid_t *pids, int n)
{
	int failed = 0;
	for (int i = 0; i < n; i++) {
		int status = 0;
		if (pids[i] < 0 || waitpid(pids[i], &status, 0) != pids[i] || status != 0)
			failed++;
	}
	return failed;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: spawner TARGET [crash]\n");
		return 2;
	}
	pid_t pids[3];
	pids[0] = fork_only(argc > 2 && strcmp(argv[2], "crash") == 0);
	pids[1] = fork_exec(argv[1]);
	pids[2] = spawn(argv[1]);
	int failed = wait_all(pids, 3);
	printf("children failed: %d\n", failed);
	return failed;
}
