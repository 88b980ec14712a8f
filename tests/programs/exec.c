/*
 * exec.c - makes a few calls, then execs another instrumented program from
 * inside a call chain (main -> exec_now -> execv), so that main and exec_now
 * never return in this image and tracing goes on in the new one.
 *
 * Usage: exec TARGET [ARG]
 */
#include <stdio.h>
#include <unistd.h>

static int exec_leaf(int x)
{
	return x * 3;
}

static int exec_prepare(void)
{
	return exec_leaf(2);
}

static void exec_now(char **target_argv)
{
	fflush(stdout);
	execv(target_argv[0], target_argv);
	perror("exec: execv");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: exec TARGET [ARG]\n");
		return 2;
	}
	printf("before exec: %d\n", exec_prepare());
	exec_now(argv + 1);
	return 1;
}
