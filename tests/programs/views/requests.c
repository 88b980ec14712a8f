/*
 * requests.c - the main loop of a request server made to test the views on
 * a program too big to draw call by call: REQUESTS requests (default 3000,
 * or argv[1]), each some 100 to 200 calls through parse.c, handle.c and
 * store.c, about half a million calls in all, after a slow start of 5 ms.  It marks the start of
 * the run and of every thousandth request with calltrace_mark() when linked with the runtime (weak:
 * it runs without it).  With argv[2] = N it pauses 1 ms after every N requests: the requests
 * between two pauses are then a sliver of a pixel of the flame chart, whatever the machine's speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "requests.h"

void calltrace_mark(const char *text) __attribute__((weak));

void mark(const char *text)
{
	if (calltrace_mark)
		calltrace_mark(text);
}

/* A slow start, so that one call is wide enough to draw alone. */
static void open_store(void)
{
	struct timespec t = {0, 5000000};
	nanosleep(&t, NULL);
}

static int next_id(int id)
{
	return id + 1;
}

int main(int argc, char **argv)
{
	int requests = argc > 1 ? atoi(argv[1]) : 3000;
	int pause_every = argc > 2 ? atoi(argv[2]) : 0;
	long sum = 0;
	char text[64];
	open_store();
	mark("serving");
	for (int id = 0; id < requests; id = next_id(id)) {
		struct request r;
		if (id % 1000 == 0) {
			snprintf(text, sizeof(text), "request %d", id);
			mark(text);
		}
		parse_request(id, &r);
		sum += handle_request(&r);
		if (pause_every > 0 && (id + 1) % pause_every == 0)
			nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
	printf("%d requests, checksum %ld\n", requests, sum);
	return 0;
}
