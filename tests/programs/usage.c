/*
 * usage.c - a program whose resource usage has known lower bounds: it
 * touches a 64 MiB buffer, sleeps 5 times for 1 ms and spins for a while.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile unsigned long sink;

static void spin(void)
{
	for (unsigned long i = 0; i < 20000000ul; i++)
		sink += i;
}

static void nap(void)
{
	struct timespec ts = {0, 1000000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(void)
{
	size_t n = 64u << 20;
	char *buf = malloc(n);
	if (!buf)
		return 1;
	memset(buf, 1, n);
	for (int i = 0; i < 5; i++)
		nap();
	spin();
	free(buf);
	return 0;
}
