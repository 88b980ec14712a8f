/*
 * main.c - an attach target whose work is in a library of its own
 * (libown.so, beside it): writes its pid to PIDFILE, then calls
 * own_tick() (which calls own_tock()) and its own step() until STOPFILE
 * exists; prints how many rounds it made and exits 0.
 *
 * Usage: attach_own PIDFILE STOPFILE [THREADS]  (one thread, whatever
 * THREADS says: the tests' start_target gives it)
 */
#include <stdio.h>
#include <unistd.h>

int own_tick(int x);

static volatile int sink;

__attribute__((noinline)) static int step(int x)
{
	return x + 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: attach_own PIDFILE STOPFILE [THREADS]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	long rounds = 0;
	while (access(argv[2], F_OK) != 0) {
		for (int i = 0; i < 1000; i++)
			sink = own_tick(step(i));
		rounds++;
	}
	printf("rounds made: %s\n", rounds > 0 ? "some" : "none");
	return 0;
}
