/*
 * diskfill.c - a program that makes many calls, enough to fill megabytes
 * of trace.  Usage: diskfill CALLS [READY_FILE GO_FILE].  It calls work()
 * CALLS times, each calling leaf() once; with READY_FILE and GO_FILE it
 * stops half way, creates READY_FILE and waits for GO_FILE before going on
 * (so that a test can do something to the trace in between).  It prints
 * what it did and exits with status 7.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned long leaf(unsigned long x)
{
	return x * 2654435761u;
}

static unsigned long work(unsigned long i)
{
	return leaf(i) ^ i;
}

static unsigned long run(unsigned long from, unsigned long to)
{
	unsigned long sum = 0;
	for (unsigned long i = from; i < to; i++)
		sum += work(i);
	return sum;
}

static void pause_half_way(const char *ready, const char *go)
{
	int fd = open(ready, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
	while (access(go, F_OK) != 0)
		usleep(1000);
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: diskfill CALLS [READY_FILE GO_FILE]\n");
		return 2;
	}
	unsigned long calls = strtoul(argv[1], NULL, 10);
	unsigned long sum = run(0, calls / 2);
	if (argc == 4)
		pause_half_way(argv[2], argv[3]);
	sum += run(calls / 2, calls);
	printf("work %lu leaf %lu sum %lu\n", calls, calls, sum);
	return 7;
}
