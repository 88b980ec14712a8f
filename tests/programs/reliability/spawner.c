/*
 * spawner.c - starts instrumented children with an environment of its own
 * that lacks LD_PRELOAD and every CALLTRACE_* variable.  Usage: spawner
 * CHILD.  It runs CHILD 1 with posix_spawn, then CHILD 2 with fork and
 * execve, then CHILD 3 with fork and execle, each with the environment
 * {"SPAWNED=yes", NULL}, then CHILD 4 with fork, clearenv and execv (as
 * `env -i` does: the environment the child had at start is gone), waits
 * for them and prints their exit statuses.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char *clean_env[] = {"SPAWNED=yes", NULL};

static int wait_status(pid_t pid)
{
	int status = 0;
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_spawned(char *child)
{
	char *argv[] = {child, "1", NULL};
	pid_t pid;
	if (posix_spawn(&pid, child, NULL, NULL, argv, clean_env) != 0)
		return -1;
	return wait_status(pid);
}

static int run_execve(char *child)
{
	char *argv[] = {child, "2", NULL};
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execve(child, argv, clean_env);
		_exit(127);
	}
	return wait_status(pid);
}

static int run_execle(char *child)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execle(child, child, "3", (char *)NULL, clean_env);
		_exit(127);
	}
	return wait_status(pid);
}

static int run_cleared(char *child)
{
	char *argv[] = {child, "4", NULL};
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		clearenv();
		execv(child, argv);
		_exit(127);
	}
	return wait_status(pid);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: spawner CHILD\n");
		return 2;
	}
	int spawned = run_spawned(argv[1]);
	printf("posix_spawn child exited %d\n", spawned);
	fflush(stdout);
	int execd = run_execve(argv[1]);
	printf("execve child exited %d\n", execd);
	fflush(stdout);
	int execled = run_execle(argv[1]);
	printf("execle child exited %d\n", execled);
	fflush(stdout);
	int cleared = run_cleared(argv[1]);
	printf("cleared child exited %d\n", cleared);
	return 0;
}
