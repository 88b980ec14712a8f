/*
 * test_ring.c - a ring (record --ring): the file keeps its size; a busy
 * thread reuses its own windows and leaves a rarely calling one's alone;
 * every call made is kept or counted overwritten; the calls open when the
 * first kept window began come back entered before it, in order; with
 * more writers than slots, an ended thread's last window stays and the
 * threads left without a slot record all the same; ring sizes parse as
 * users write them.
 */
#include "../../src/format/trace_reader.h"
#include "../../src/format/trace_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

#define RING (128u << 10) /* 8 slots of 16 KiB */
#define BUSY_CALLS 400000 /* about 70 windows */
#define RARE_CALLS 6000	  /* about 2 windows */
#define OUTER 0x500000u	  /* the busy thread's three open calls */

static uint64_t tick;

/* `n` leaf calls of `fn` on stream `st`. */
static void leaves(struct trace_stream *st, uint64_t fn, int n)
{
	for (int i = 0; i < n; i++) {
		tick += 10;
		trace_stream_enter(st, fn, tick, 0);
		trace_stream_exit(st, fn, tick + 5);
	}
}

/* The rare thread writes first, the busy one then goes round the ring many
 * times inside three open calls. */
static void write_ring(const char *path)
{
	struct trace_session s;
	CHECK(trace_session_create_replacing(&s, path, "prog", 4, 0) == 0, "create %s", path);
	CHECK(trace_session_make_ring(&s, RING) == 0, "make_ring");
	trace_session_new_image(&s, 4321);
	trace_write_process(&s, PROCESS_START, 0, 1, 0, "/bin/prog", "prog", 4);
	struct trace_stream rare, busy;
	trace_stream_init(&rare, &s, 2);
	trace_stream_init(&busy, &s, 1);
	tick = trace_clock_tick();
	leaves(&rare, 0x400100, RARE_CALLS);
	for (uint64_t f = OUTER; f < OUTER + 3; f++)
		trace_stream_enter(&busy, f, tick += 10, 0);
	leaves(&busy, 0x400200, BUSY_CALLS);
	for (uint64_t f = OUTER + 3; f-- > OUTER;)
		trace_stream_exit(&busy, f, tick += 10);
	trace_stream_destroy(&busy);
	trace_stream_destroy(&rare);
	trace_session_close(&s);
}

struct thread_count {
	uint64_t enters, before, exits;
	uint64_t first[3]; /* the addresses of its first three enters */
	int first_before;  /* how many of those were entered before */
};

static void count_thread(struct trace_reader *r, const struct trace_thread *t,
			 struct thread_count *c)
{
	struct trace_cursor cur;
	struct trace_event ev;
	memset(c, 0, sizeof(*c));
	trace_cursor_init(&cur, r, t);
	while (trace_cursor_next(&cur, &ev)) {
		if (ev.type == TRACE_ENTER) {
			if (c->enters < 3) {
				c->first[c->enters] = ev.address;
				c->first_before += ev.before;
			}
			c->enters++;
			c->before += ev.before;
		} else if (ev.type == TRACE_EXIT) {
			c->exits++;
		}
	}
	trace_cursor_fini(&cur);
}

static void test_ring(const char *path)
{
	write_ring(path);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size <= RING + 3 * 4096 + 4096,
	      "the file has %lld bytes, ring %u", (long long)st.st_size, RING);
	char err[256];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "open: %s", err);
	if (!r)
		return;
	CHECK(r->nproblems == 0, "%zu problems: %s", r->nproblems,
	      r->nproblems ? r->problems[0].message : "");
	CHECK(r->header.ring_slots == 8 && r->header.ring_slot_size == (16u << 10),
	      "ring of %u slots of %u", r->header.ring_slots, r->header.ring_slot_size);
	CHECK(r->nthreads == 2, "%zu threads", r->nthreads);
	struct thread_count rare = {0}, busy = {0};
	for (size_t i = 0; i < r->nthreads; i++)
		count_thread(r, &r->threads[i], r->threads[i].tid == 2 ? &rare : &busy);
	CHECK(rare.enters == RARE_CALLS && rare.before == 0,
	      "the rare thread kept %llu of its %d calls", (unsigned long long)rare.enters,
	      RARE_CALLS);
	CHECK(busy.enters < BUSY_CALLS && busy.enters > 1000, "the busy thread kept %llu calls",
	      (unsigned long long)busy.enters);
	CHECK(busy.before == 3 && busy.first_before == 3 && busy.first[0] == OUTER &&
		  busy.first[1] == OUTER + 1 && busy.first[2] == OUTER + 2,
	      "the open calls come first, entered before: %llu before, first %llx %llx %llx",
	      (unsigned long long)busy.before, (unsigned long long)busy.first[0],
	      (unsigned long long)busy.first[1], (unsigned long long)busy.first[2]);
	CHECK(busy.exits == busy.enters, "%llu exits for %llu enters",
	      (unsigned long long)busy.exits, (unsigned long long)busy.enters);
	uint64_t made = RARE_CALLS + BUSY_CALLS + 3;
	uint64_t kept = rare.enters + busy.enters - busy.before;
	CHECK(kept + r->header.ring_overwritten_calls == made,
	      "%llu kept + %llu overwritten != %llu made", (unsigned long long)kept,
	      (unsigned long long)r->header.ring_overwritten_calls, (unsigned long long)made);
	CHECK(r->header.ring_overwritten_windows > 50, "%llu windows overwritten",
	      (unsigned long long)r->header.ring_overwritten_windows);
	trace_reader_close(r);
}

#define CROWD 18	  /* writers in a ring of 16 slots */
#define CROWD_CALLS 40000 /* about 7 windows each */
#define ENDED_CALLS 1000  /* one window */

/* One thread calls and ends; then CROWD threads take every slot but its
 * window and go round the ring together, one window at a time each: no
 * slot is left to copy a full window into but the ended thread's (which
 * stays), and three threads find no slot at all (written in memory). */
static void write_crowd(const char *path)
{
	static struct trace_stream st[CROWD];
	struct trace_session s;
	CHECK(trace_session_create_replacing(&s, path, "prog", 4, 0) == 0, "create %s", path);
	CHECK(trace_session_make_ring(&s, 256u << 10) == 0, "make_ring");
	trace_session_new_image(&s, 4321);
	trace_write_process(&s, PROCESS_START, 0, 1, 0, "/bin/prog", "prog", 4);
	struct trace_stream ended;
	trace_stream_init(&ended, &s, 100);
	tick = trace_clock_tick();
	leaves(&ended, 0x400500, ENDED_CALLS);
	trace_stream_destroy(&ended);
	for (int i = 0; i < CROWD; i++)
		trace_stream_init(&st[i], &s, 200 + (uint32_t)i);
	for (int round = 0; round < CROWD_CALLS / 100; round++)
		for (int i = 0; i < CROWD; i++)
			leaves(&st[i], 0x400600, 100);
	for (int i = 0; i < CROWD; i++)
		trace_stream_destroy(&st[i]);
	trace_session_close(&s);
}

static void test_crowd(const char *path)
{
	write_crowd(path);
	char err[256];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "open: %s", err);
	if (!r)
		return;
	CHECK(r->nproblems == 0 && r->losses.missing_windows == 0,
	      "%zu problems (%s), %llu missing", r->nproblems,
	      r->nproblems ? r->problems[0].message : "",
	      (unsigned long long)r->losses.missing_windows);
	CHECK(r->header.ring_private_threads == 3, "%u threads wrote in memory",
	      r->header.ring_private_threads);
	uint64_t kept = 0, ended = 0;
	size_t writers = 0;
	for (size_t i = 0; i < r->nthreads; i++) {
		struct thread_count c;
		count_thread(r, &r->threads[i], &c);
		kept += c.enters - c.before;
		if (r->threads[i].tid == 100)
			ended = c.enters;
		else
			writers += c.enters > 0;
	}
	CHECK(ended == ENDED_CALLS, "the ended thread kept %llu of its %d calls",
	      (unsigned long long)ended, ENDED_CALLS);
	/* 16 slots, 19 threads ended: the first thread's window and 15 others. */
	CHECK(writers == 15, "%zu of the %d crowding threads kept calls", writers, CROWD);
	uint64_t made = ENDED_CALLS + (uint64_t)CROWD * CROWD_CALLS;
	CHECK(kept + r->header.ring_overwritten_calls == made,
	      "%llu kept + %llu overwritten != %llu made", (unsigned long long)kept,
	      (unsigned long long)r->header.ring_overwritten_calls, (unsigned long long)made);
	trace_reader_close(r);
}

/* A snapshot of the ring is a trace like it, taken while streams are open. */
static void test_snapshot(const char *path)
{
	struct trace_session s;
	CHECK(trace_session_create_replacing(&s, path, "prog", 4, 0) == 0, "create");
	CHECK(trace_session_make_ring(&s, RING) == 0, "make_ring");
	trace_session_new_image(&s, 4321);
	struct trace_stream st;
	trace_stream_init(&st, &s, 7);
	tick = trace_clock_tick();
	leaves(&st, 0x400300, 50000);
	char copy[4200];
	CHECK(trace_session_snapshot(&s, copy, sizeof(copy)) == 0, "snapshot");
	leaves(&st, 0x400400, 10);
	trace_stream_destroy(&st);
	trace_session_close(&s);
	char err[256];
	struct trace_reader *r = trace_reader_open(copy, err, sizeof(err));
	CHECK(r != NULL && r->nproblems == 0 && r->nthreads == 1, "the snapshot reads: %s",
	      r ? "" : err);
	if (r) {
		struct thread_count c;
		count_thread(r, &r->threads[0], &c);
		CHECK(c.enters + r->header.ring_overwritten_calls == 50000,
		      "snapshot: %llu kept + %llu overwritten", (unsigned long long)c.enters,
		      (unsigned long long)r->header.ring_overwritten_calls);
		trace_reader_close(r);
	}
	unlink(copy);
}

static void test_sizes(void)
{
	static const struct {
		const char *text;
		uint64_t size; /* 0: refused */
	} cases[] = {{"64K", 64u << 10},
		     {"16M", 16u << 20},
		     {"16MiB", 16u << 20},
		     {"1g", 1u << 30},
		     {"65536", 65536},
		     {"12K", 0},
		     {"", 0},
		     {"M", 0},
		     {"16Q", 0},
		     {"2T", 0},
		     {"99999999999999999999", 0}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t got = 0;
		int rc = trace_ring_parse_size(cases[i].text, &got);
		CHECK(cases[i].size ? rc == 0 && got == cases[i].size : rc < 0, "'%s': rc %d, %llu",
		      cases[i].text, rc, (unsigned long long)got);
	}
}

int main(void)
{
	char dir[] = "/tmp/calltrace-ring-XXXXXX", path[4096], snap[4096];
	if (!mkdtemp(dir))
		return 2;
	snprintf(path, sizeof(path), "%s/ring.trace", dir);
	snprintf(snap, sizeof(snap), "%s/snap.trace", dir);
	test_ring(path);
	test_crowd(path);
	test_snapshot(snap);
	test_sizes();
	unlink(path);
	unlink(snap);
	rmdir(dir);
	return CHECK_SUMMARY("test_ring");
}
