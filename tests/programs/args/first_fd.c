/* first_fd.c - prints the descriptor its first open() gets: recording with
 * --args must not take one of the low descriptors the program counts on. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int opener(const char *path)
{
	return open(path, O_RDONLY);
}

int main(int argc, char **argv)
{
	int fd = opener(argc > 1 ? argv[1] : "/dev/null");
	printf("%d\n", fd);
	close(fd);
	return 0;
}
