/*
 * concurrent.c - one of many programs recorded at the same time in one
 * folder.  Usage: concurrent ID CALLS GO_FILE.  It waits until GO_FILE
 * exists (so that all of them run at once), then calls work() CALLS + ID
 * times, each calling leaf() once, prints what it did and exits with
 * status 10 + ID % 50.
 */
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

static void wait_for(const char *path)
{
	while (access(path, F_OK) != 0)
		usleep(1000);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: concurrent ID CALLS GO_FILE\n");
		return 2;
	}
	int id = atoi(argv[1]);
	unsigned long calls = strtoul(argv[2], NULL, 10) + (unsigned long)id;
	wait_for(argv[3]);
	unsigned long sum = 0;
	for (unsigned long i = 0; i < calls; i++)
		sum += work(i);
	printf("program %d: work %lu leaf %lu sum %lu\n", id, calls, calls, sum);
	return 10 + id % 50;
}
