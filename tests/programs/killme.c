/*
 * killme.c - gets into a known state and blocks there forever, for a test
 * that kills it with SIGKILL.
 *
 * main calls warm_up (-> warm_leaf x3) and start_blocker, whose thread enters
 * blocker_thread -> blocker_wait and blocks.  Then main descends
 * deep_1 -> deep_2 -> deep_3 -> deep_4 -> deep_5 -> park, and park writes
 * "<pid>\n" into MARKER (atomically, by rename, in a function that is not
 * instrumented) and blocks.  Once MARKER exists, the threads record nothing
 * more.
 *
 * Usage: killme MARKER [WARM_CALLS]   (warm_leaf calls, default 3)
 */
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static sem_t blocker_ready;
static const char *marker;
static int warm_calls = 3;

static int warm_leaf(int x)
{
	return x + 1;
}

static long long warm_up(void)
{
	long long v = 0;
	for (int i = 0; i < warm_calls; i++)
		v += warm_leaf(i);
	return v;
}

static void blocker_wait(void)
{
	sem_post(&blocker_ready);
	for (;;)
		pause();
}

static void *blocker_thread(void *arg)
{
	(void)arg;
	blocker_wait();
	return NULL;
}

static void start_blocker(void)
{
	pthread_t t;
	sem_init(&blocker_ready, 0, 0);
	pthread_create(&t, NULL, blocker_thread, NULL);
	sem_wait(&blocker_ready);
}

/* Not instrumented: nothing may be recorded after the marker exists. */
__attribute__((no_instrument_function)) static void write_marker(void)
{
	char tmp[4096], line[32];
	snprintf(tmp, sizeof(tmp), "%s.tmp", marker);
	int len = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, line, len) != len) {
		perror("killme: marker");
		exit(2);
	}
	close(fd);
	rename(tmp, marker);
}

static void park(void)
{
	write_marker();
	for (;;)
		pause();
}

static void deep_5(void)
{
	park();
}

static void deep_4(void)
{
	deep_5();
}

static void deep_3(void)
{
	deep_4();
}

static void deep_2(void)
{
	deep_3();
}

static void deep_1(void)
{
	deep_2();
}

int main(int argc, char **argv)
{
	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: killme MARKER [WARM_CALLS]\n");
		return 2;
	}
	marker = argv[1];
	if (argc == 3)
		warm_calls = atoi(argv[2]);
	printf("warm: %lld\n", warm_up());
	fflush(stdout);
	start_blocker();
	deep_1();
	return 0;
}
