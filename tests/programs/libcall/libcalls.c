/*
 * libcalls.c - a program whose functions call into the C library: open,
 * read, write, close, malloc, free, getpid, and qsort, whose comparison
 * calls back into the program (the callback nests under the library call).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int compare(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void sort_three(void)
{
	int v[3] = {3, 1, 2};
	qsort(v, 3, sizeof(int), compare);
}

static int copy_file(const char *from, const char *to)
{
	char buf[64];
	int in = open(from, O_RDONLY);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ssize_t n = read(in, buf, sizeof(buf));
	if (n > 0 && write(out, buf, (size_t)n) != n)
		return 1;
	close(in);
	close(out);
	return 0;
}

/* A call that fails: open sets errno (ENOENT). */
static int missing(void)
{
	return open("/nonexistent/calltrace", O_RDONLY);
}

static int buffers(void)
{
	char *p = malloc(32);
	int pid = getpid();
	free(p);
	return pid > 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int rc = copy_file(argv[1], argv[2]);
	missing();
	buffers();
	sort_three();
	return rc;
}
