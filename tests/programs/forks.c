/*
 * forks.c - processes made with fork and vfork.
 *
 *   forks fork PIDFILE         a child that ends with exit() after its calls,
 *                              and one that ends with _exit() right after them
 *   forks vfork PIDFILE TARGET a vfork child that execs TARGET, and one whose
 *                              exec fails and that ends with _exit(127)
 *   forks kill PIDFILE         a child that waits to be killed, killed with
 *                              SIGTERM and reaped by waitpid(), and one that
 *                              sends itself SIGKILL, reaped by wait()
 *
 * The parent writes "<role> <pid>" lines into PIDFILE so that a test knows
 * the children's pids; stdout is deterministic.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static FILE *pidfile;

static int reap(pid_t pid)
{
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int child_leaf(int x)
{
	return x + 10;
}

static int child_mid(int x)
{
	return child_leaf(x) * 2;
}

static void child_exit_path(void)
{
	int a = child_leaf(1);
	int b = child_mid(a);
	printf("exit child: %d\n", b);
}

static int quick_leaf(int x)
{
	return x ^ 1;
}

static void quick_last(int v)
{
	dprintf(STDOUT_FILENO, "_exit child: %d\n", v);
}

static void child_quick_path(void)
{
	int v = 0;
	for (int i = 0; i < 50; i++)
		v += quick_leaf(i);
	quick_last(v);
}

static void note_child(const char *role, pid_t pid)
{
	fprintf(pidfile, "%s %d\n", role, (int)pid);
	fflush(pidfile);
}

static void fork_then_exit(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_exit_path();
		exit(0);
	}
	note_child("exit_child", pid);
	printf("exit child status: %d\n", reap(pid));
}

static void fork_then_quick_exit(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_quick_path();
		_exit(0);
	}
	note_child("quick_exit_child", pid);
	printf("_exit child status: %d\n", reap(pid));
}

static void vfork_then_exec(const char *target)
{
	fflush(stdout);
	pid_t pid = vfork();
	if (pid == 0) {
		execl(target, target, "0", (char *)NULL);
		_exit(127);
	}
	note_child("vfork_exec_child", pid);
	printf("vfork exec child status: %d\n", reap(pid));
}

static void vfork_exec_fails(const char *missing)
{
	fflush(stdout);
	pid_t pid = vfork();
	if (pid == 0) {
		execl(missing, missing, (char *)NULL);
		_exit(127);
	}
	note_child("vfork_failed_child", pid);
	printf("vfork failed exec child status: %d\n", reap(pid));
}

static void fork_then_kill(void)
{
	int ready[2];
	if (pipe(ready) < 0)
		exit(2);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_leaf(0);
		close(ready[0]);
		close(ready[1]); /* the parent may kill it now */
		for (;;)
			pause();
	}
	close(ready[1]);
	char c;
	while (read(ready[0], &c, 1) > 0)
		;
	close(ready[0]);
	note_child("killed_child", pid);
	kill(pid, SIGTERM);
	printf("killed child status: %d\n", reap(pid));
}

static void fork_then_wait(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_leaf(1);
		kill(getpid(), SIGKILL);
	}
	note_child("waited_child", pid);
	int status = 0;
	wait(&status);
	printf("waited child signal: %d\n", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int usage(void)
{
	fprintf(stderr,
		"usage: forks fork PIDFILE | forks vfork PIDFILE TARGET | forks kill PIDFILE\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	pidfile = fopen(argv[2], "w");
	if (!pidfile) {
		perror("forks: pidfile");
		return 2;
	}
	if (strcmp(argv[1], "fork") == 0) {
		fork_then_exit();
		fork_then_quick_exit();
	} else if (strcmp(argv[1], "vfork") == 0 && argc == 4) {
		char missing[4096];
		snprintf(missing, sizeof(missing), "%s.missing", argv[3]);
		vfork_then_exec(argv[3]);
		vfork_exec_fails(missing);
	} else if (strcmp(argv[1], "kill") == 0) {
		fork_then_kill();
		fork_then_wait();
	} else {
		return usage();
	}
	fclose(pidfile);
	return 0;
}
