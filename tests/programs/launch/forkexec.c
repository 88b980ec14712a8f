/*
 * forkexec.c - forkexec N PROGRAM [ARGS...]: N times, one after the
 * other, a fork child that execs PROGRAM, waited for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(char **argv)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int n = atoi(argv[1]), failed = 0;
	for (int i = 0; i < n; i++)
		failed += run(argv + 2) != 0;
	return failed;
}
