/*
 * sys_target.c - a process to attach to with --syscalls --sched: it writes
 * its pid to PIDFILE, then until STOPFILE exists its main thread calls
 * getpgid(0) and each of its THREADS threads getppid(), every one then
 * sleeping 5 ms (clock_nanosleep).
 *
 * usage: sys_target PIDFILE STOPFILE THREADS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../dynamic/pid_file.h"

static const char *stop_file;

static void nap(void)
{
	struct timespec ts = {0, 5 * 1000 * 1000};
	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	while (access(stop_file, F_OK) != 0) {
		getppid();
		nap();
	}
	return arg;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	stop_file = argv[2];
	int n = atoi(argv[3]);
	pthread_t t[16];
	for (int i = 0; i < n && i < 16; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	announce(argv[1]);
	while (access(stop_file, F_OK) != 0) {
		getpgid(0);
		nap();
	}
	for (int i = 0; i < n && i < 16; i++)
		pthread_join(t[i], NULL);
	return 0;
}
