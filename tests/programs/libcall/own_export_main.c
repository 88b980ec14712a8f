/*
 * own_export_main.c - a process to attach to that calls outer() of its own
 * library (own_export_lib.c) round after round, 100 us apart, until the
 * file argv[2] exists.  Writes its pid to argv[1] once running; exits 0.
 *
 * Usage: own_export PIDFILE STOPFILE
 */
#include <time.h>
#include <unistd.h>
#include "../dynamic/pid_file.h"

int outer(int x);

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	announce(argv[1]);
	long sum = 0;
	struct timespec pause = {0, 100 * 1000};
	for (long round = 0;; round++) {
		sum += outer((int)round);
		nanosleep(&pause, NULL);
		if ((round & 255) == 0 && access(argv[2], F_OK) == 0)
			break;
	}
	return sum == 42;
}
