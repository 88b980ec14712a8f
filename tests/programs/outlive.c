/*
 * outlive.c - a fork child that ends after its parent: the parent forks,
 * prints the child's pid, calls parent_work() and returns; the child waits
 * until the parent is gone (its end of a pipe closes), then calls
 * child_work() twice and ends with exit(), or with _exit() when the first
 * argument is "_exit".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int child_leaf(int x)
{
	return x * 3;
}

static int child_work(int x)
{
	return child_leaf(x) + 1;
}

static int parent_work(int x)
{
	return x - 1;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && strcmp(argv[1], "_exit") == 0;
	int fds[2];
	if (pipe(fds) < 0)
		return 2;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		char c;
		close(fds[1]);
		while (read(fds[0], &c, 1) > 0)
			;
		int v = child_work(1) + child_work(2);
		if (quick)
			_exit(v == 11 ? 0 : 1);
		exit(v == 11 ? 0 : 1);
	}
	close(fds[0]);
	printf("%d\n", (int)pid);
	return parent_work(1);
}
