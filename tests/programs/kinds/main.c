/*
 * main.c - the program of the tests of library calls (trace_gen traces,
 * never run by them): it calls C library functions and libkinds's through
 * its PLT, so it has a GOT slot for each of them.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int kinds_lookup(const char *key);

int load_config(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[64];
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return atoi(buf) + kinds_lookup(buf);
}

int main(int argc, char **argv)
{
	char *copy = malloc(16);
	int v = load_config(argc > 1 ? argv[1] : "/etc/hostname");
	puts(copy ? "ok" : "no memory");
	free(copy);
	return v & 1;
}
