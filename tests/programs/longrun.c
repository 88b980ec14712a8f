/*
 * longrun.c - calls tick() N times (N from argv), then prints its own peak
 * resident set size (VmHWM from /proc/self/status) as "VmHWM: <kB> kB".
 *
 * Usage: longrun N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long tick(unsigned long x)
{
	return x * 2654435761u + 1;
}

static void print_hwm(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			fputs(line, stdout);
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: longrun N\n");
		return 2;
	}
	long n = atol(argv[1]);
	unsigned long v = 0;
	for (long i = 0; i < n; i++)
		v = tick(v);
	printf("calls %ld checksum %lu\n", n, v & 0xffff);
	print_hwm();
	return 0;
}
