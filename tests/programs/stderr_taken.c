/*
 * stderr_taken.c - a program that closes its stderr and opens a file of its
 * own, which takes descriptor 2, then goes on calling functions: whatever
 * the runtime says at its end must not land in that file.
 *
 *   stderr_taken FILE    main -> work x 5, close(2), open FILE, main -> work x 5
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int work(int i)
{
	return i * 3 + (i & 1);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int sum = 0;
	for (int i = 0; i < 5; i++)
		sum += work(i);
	close(2);
	int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char line[64];
	int n = snprintf(line, sizeof(line), "fd %d sum %d\n", fd, sum);
	if (fd < 0 || write(fd, line, (size_t)n) != n)
		return 1;
	for (int i = 0; i < 5; i++)
		sum += work(i);
	return sum == 0;
}
