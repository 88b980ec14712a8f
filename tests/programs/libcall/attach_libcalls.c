/*
 * attach_libcalls.c - a process to attach to whose function `work` calls
 * into the C library (getpid, labs) round after round, 100 us apart (a
 * nanosleep in main), until the file argv[2] exists (looked for every
 * 256 rounds, by `finished`).  Writes its pid to argv[1] once running; exits 0.
 *
 * Usage: attach_libcalls PIDFILE STOPFILE
 */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "../dynamic/pid_file.h"

static long __attribute__((noinline)) work(long round)
{
	return getpid() + labs(round);
}

static int __attribute__((noinline)) finished(const char *stop)
{
	return access(stop, F_OK) == 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	announce(argv[1]);
	long sum = 0;
	struct timespec pause = {0, 100 * 1000};
	for (long round = 0;; round++) {
		sum += work(round);
		nanosleep(&pause, NULL);
		if ((round & 255) == 0 && finished(argv[2]))
			break;
	}
	return sum == 42;
}
