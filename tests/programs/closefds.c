/*
 * closefds.c - a program that behaves like a daemon: it closes every
 * descriptor above stderr in the middle of its work, opens a file of its own
 * (which gets the lowest free number) and goes on calling functions.  It
 * prints the descriptor numbers it got, so that a traced run can be compared
 * with an untraced one, and what it reads back from its own file.
 *
 *   closefds FILE N    main -> work x N, close_all, then main -> work x N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int work(int i)
{
	return i * 3;
}

static void close_all(void)
{
	for (int fd = 3; fd < 4096; fd++)
		close(fd);
}

static long run_round(int n)
{
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += work(i);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	int n = atoi(argv[2]);
	int first = open("/dev/null", O_RDONLY);
	printf("first fd %d\n", first);
	printf("round 1: %ld\n", run_round(n));
	close_all();
	int own = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	printf("own fd %d\n", own);
	printf("round 2: %ld\n", run_round(n));
	const char text[] = "the program's own data\n";
	if (write(own, text, sizeof(text) - 1) != (ssize_t)sizeof(text) - 1)
		return 1;
	char back[64] = "";
	if (pread(own, back, sizeof(back) - 1, 0) < 0)
		return 1;
	printf("read back: %s", back);
	return 0;
}
