/*
 * stop_at_exec.c - starts PROGRAM stopped on its first instruction, its
 * libraries not loaded yet (traced for its exec, then let go with SIGSTOP),
 * writes its pid to PIDFILE, and waits for it: exits with its status (128 +
 * the signal that killed it).
 *
 * Usage: stop_at_exec PIDFILE PROGRAM [ARGS...]
 */
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	pid_t child = fork();
	if (child == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	int status;
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
		return 2;
	ptrace(PTRACE_DETACH, child, 0, (void *)(long)SIGSTOP);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%d\n", (int)child);
	fclose(f);
	while (waitpid(child, &status, 0) == child && !WIFEXITED(status) && !WIFSIGNALED(status))
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
