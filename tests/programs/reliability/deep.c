/*
 * deep.c - recursion DEPTH levels deep, DESCENTS times over.  Usage: deep
 * DEPTH DESCENTS.  The recursion runs in a thread with a stack big enough
 * for it; that thread's start routine is not instrumented, so descend() is
 * the thread's outermost call and the deepest call is at depth DEPTH.  Each
 * descent calls descend() DEPTH times.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long depth_wanted, descents;
static unsigned long calls_made;

static unsigned long descend(unsigned long level)
{
	calls_made++;
	if (level == depth_wanted)
		return level;
	return descend(level + 1) + 1;
}

__attribute__((no_instrument_function)) static void *deep_thread(void *arg)
{
	unsigned long *deepest = arg;
	for (unsigned long i = 0; i < descents; i++)
		*deepest = descend(1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: deep DEPTH DESCENTS\n");
		return 2;
	}
	depth_wanted = strtoul(argv[1], NULL, 10);
	descents = strtoul(argv[2], NULL, 10);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	/* -O0 frames and the hooks: well under 1 KiB a level. */
	pthread_attr_setstacksize(&attr, depth_wanted * 1024 + (1u << 20));
	pthread_t t;
	unsigned long deepest = 0;
	if (pthread_create(&t, &attr, deep_thread, &deepest) != 0) {
		perror("pthread_create");
		return 1;
	}
	pthread_join(t, NULL);
	printf("descend %lu deepest %lu calls %lu\n", depth_wanted * descents, deepest, calls_made);
	return 0;
}
