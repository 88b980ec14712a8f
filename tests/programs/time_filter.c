/*
 * time_filter.c - calls that last long (a nap: 200 ms asleep) beside calls
 * that return at once, for record --time-filter.
 *
 * main: quick x3; nap_alone (naps); short_outer -> short_inner (quick);
 * parent_of_nap -> quick, nap_alone, quick; jump_out: setjmp, then
 * dive_long (naps, then longjmps back) and dive_quick (longjmps back at
 * once), then quick; in_child: a forked child calls nap_alone.  With the
 * argument "crash": main -> crash_outer -> quick, crash_inner (naps, then
 * writes through a null pointer).  With "deep": main -> deep_rec(100), then
 * deep_rec(5000) (quick calls, the second deeper than the filter holds back).
 * With "threads": two threads each call quick, nap_alone, quick.
 * Prints "time_filter done".  With "PIDFILE STOPFILE loop" (for attach):
 * writes its pid into PIDFILE, then calls quick and nap_alone in turn until
 * STOPFILE exists.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static jmp_buf env;
static volatile int sink;

static NOINLINE void nap(void)
{
	struct timespec ts = {0, 200 * 1000 * 1000};
	while (nanosleep(&ts, &ts) != 0)
		;
}

static NOINLINE int quick(int x)
{
	return x + 1;
}

static NOINLINE void nap_alone(void)
{
	nap();
}

static NOINLINE void short_inner(void)
{
	sink = quick(sink);
}

static NOINLINE void short_outer(void)
{
	short_inner();
}

static NOINLINE void parent_of_nap(void)
{
	sink = quick(sink);
	nap_alone();
	sink = quick(sink);
}

static NOINLINE void dive_long(void)
{
	nap();
	longjmp(env, 1);
}

static NOINLINE void dive_quick(void)
{
	longjmp(env, 2);
}

static NOINLINE void jump_out(void)
{
	int round = setjmp(env);
	if (round == 0)
		dive_long();
	if (round == 1)
		dive_quick();
	sink = quick(sink);
}

static NOINLINE void in_child(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		nap_alone();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static NOINLINE void crash_inner(void)
{
	nap();
	*(volatile int *)(sink > 1000 ? &sink : NULL) = 1;
}

static NOINLINE void crash_outer(void)
{
	sink = quick(sink);
	crash_inner();
}

static NOINLINE int deep_rec(int n)
{
	return n <= 1 ? 1 : 1 + deep_rec(n - 1);
}

static NOINLINE void *worker(void *arg)
{
	sink = quick(sink);
	nap_alone();
	sink = quick(sink);
	return arg;
}

static NOINLINE void two_threads(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static NOINLINE void loop(const char *pid_file, const char *stop_file)
{
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.tmp", pid_file);
	FILE *f = fopen(tmp, "w");
	if (!f)
		exit(2);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	rename(tmp, pid_file);
	while (access(stop_file, F_OK) != 0) {
		sink = quick(sink);
		nap_alone();
	}
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[3], "loop") == 0) {
		loop(argv[1], argv[2]);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "threads") == 0) {
		two_threads();
		printf("time_filter done\n");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "deep") == 0) {
		sink = deep_rec(100) + deep_rec(5000);
		printf("time_filter done\n");
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "crash") == 0) {
		crash_outer();
		return 0;
	}
	for (int i = 0; i < 3; i++)
		sink = quick(sink);
	nap_alone();
	short_outer();
	parent_of_nap();
	jump_out();
	in_child();
	printf("time_filter done\n");
	return 0;
}
