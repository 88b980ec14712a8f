/*
 * parked_entry.c (x86-64) - a process to attach to with a thread blocked in
 * pause() inside the entry of parked(): the system call is its first
 * instruction but one, so the thread's pc lies within the bytes an entry
 * jump would take, and the attach must leave parked() alone.  The main
 * thread calls tick() every 10 ms.
 *
 * Runs until STOPFILE exists, then prints how many ticks it made (above 0)
 * and exits with status 3.  Writes its pid to PIDFILE once the thread is
 * parked.
 *
 * Usage: parked_entry PIDFILE STOPFILE [IGNORED]
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "pid_file.h"

__attribute__((naked, noinline)) long parked(long number)
{
	__asm__("mov %edi, %eax\n\tsyscall\n\tnop\n\tnop\n\tnop\n\tnop\n\tret");
}

static volatile long ticks_seen; /* tick() is long enough for a jump */

__attribute__((noinline)) int tick(int n)
{
	ticks_seen += n;
	return n + 1;
}

static void *park(void *unused)
{
	(void)unused;
	parked(SYS_pause);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	pthread_t thread;
	if (pthread_create(&thread, NULL, park, NULL) != 0)
		return 2;
	usleep(100000); /* the thread is in pause() by then */
	announce(argv[1]);
	int n = 0;
	while (access(argv[2], F_OK) != 0) {
		n = tick(n);
		usleep(10000);
	}
	printf("%s\n", n > 0 ? "ticked" : "no tick");
	return 3;
}
