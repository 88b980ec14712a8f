/*
 * test_format.c - the trace format: what the encoder writes, the reader
 * reads back exactly; a truncated, corrupted or foreign file gives a clear
 * error or a reported problem, never a crash.
 */
#include "../../src/format/printable.h"
#include "../../src/format/trace_clock.h"
#include "../../src/format/trace_reader.h"
#include "../../src/format/trace_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char dir[4096];

struct expected {
	enum trace_event_type type;
	uint64_t address;
};

#define NEVENTS 20000
static struct expected want[NEVENTS];
static size_t nwant;

/* Writes a trace of one thread: calls over 300 distinct functions (ids
 * past the one-byte forms), a pause and a mark, over several windows. */
static void write_sample(const char *path, uint32_t window)
{
	struct trace_session s;
	if (trace_session_create_replacing(&s, path, "prog\0arg", 9, window) < 0) {
		perror(path);
		exit(2);
	}
	trace_session_new_image(&s, 1234);
	trace_write_process(&s, PROCESS_START, 0, 1, 0, "/bin/prog", "prog\0arg", 9);
	trace_write_module(&s, MODULE_LOAD, 0x1000, 0x400000, 0x500000, "\x01\x02", 2, "/bin/prog");
	struct trace_stream st;
	trace_stream_init(&st, &s, 1235);
	trace_write_thread(&s, 1235, THREAD_START, "worker");
	uint64_t tick = trace_clock_tick();
	nwant = 0;
	for (int i = 0; nwant + 2 <= NEVENTS - 5; i++) {
		uint64_t fn = 0x400000 + (uint64_t)(i % 300) * 64;
		tick += (uint64_t)(i % 7) * 1000;
		trace_stream_enter(&st, fn, tick, 0);
		want[nwant++] = (struct expected){TRACE_ENTER, fn};
		trace_stream_exit(&st, fn, tick + 5);
		want[nwant++] = (struct expected){TRACE_EXIT, fn};
	}
	trace_stream_enter(&st, 0x400000, tick + 8, 0); /* left open: the pause ends it */
	want[nwant++] = (struct expected){TRACE_ENTER, 0x400000};
	trace_stream_pause(&st, tick + 10);
	want[nwant++] = (struct expected){TRACE_PAUSE, 0};
	trace_stream_mark(&st, tick + 20, "hello");
	want[nwant++] = (struct expected){TRACE_MARK, 0};
	trace_stream_destroy(&st);
	trace_session_close(&s);
}

/* Reads every event back; returns how many there were.  *mismatch is set
 * when they differ from `want` in order, up to the first gap: a pause that
 * `want` does not have, which the reader makes where windows are missing
 * (*gaps counts them; NULL: a gap is a mismatch). */
static size_t read_back_gaps(struct trace_reader *r, int *mismatch, int *gaps)
{
	size_t n = 0;
	int comparing = 1;
	*mismatch = 0;
	if (gaps)
		*gaps = 0;
	for (size_t t = 0; t < r->nthreads; t++) {
		struct trace_cursor c;
		struct trace_event ev;
		uint64_t last = 0;
		trace_cursor_init(&c, r, &r->threads[t]);
		while (trace_cursor_next(&c, &ev)) {
			if (gaps && comparing && ev.type == TRACE_PAUSE &&
			    (n >= nwant || want[n].type != TRACE_PAUSE)) {
				++*gaps;
				comparing = 0;
			}
			if (comparing &&
			    (n >= nwant || ev.type != want[n].type ||
			     (ev.type == TRACE_ENTER && ev.address != want[n].address) ||
			     (ev.type == TRACE_EXIT && !ev.innermost)))
				*mismatch = 1;
			if (ev.time_ns < last)
				*mismatch = 1;
			last = ev.time_ns;
			n++;
		}
		trace_cursor_fini(&c);
	}
	return n;
}

static size_t read_back(struct trace_reader *r, int *mismatch)
{
	return read_back_gaps(r, mismatch, NULL);
}

static void test_round_trip(const char *path)
{
	char err[256];
	write_sample(path, 16 << 10);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "open: %s", err);
	if (!r)
		return;
	CHECK(r->nproblems == 0, "no problems, got %zu (%s)", r->nproblems,
	      r->nproblems ? r->problems[0].message : "");
	CHECK(r->nthreads == 1 && r->threads[0].tid == 1235, "one thread 1235");
	CHECK(r->threads[0].nwindows > 3, "several windows (%zu)", r->threads[0].nwindows);
	CHECK(strcmp(r->threads[0].name, "worker") == 0, "thread name");
	CHECK(r->nimages == 1 && r->images[0].pid == 1234, "one image, pid 1234");
	CHECK(strcmp(r->images[0].command, "prog arg") == 0, "command '%s'", r->images[0].command);
	CHECK(strcmp(r->command, "prog arg") == 0, "header command '%s'", r->command);
	const struct trace_module *m = trace_reader_find_module(r, r->images[0].id, 0x400040, 0);
	CHECK(m && strcmp(m->path, "/bin/prog") == 0 && m->build_id_len == 2, "module found");
	int mismatch;
	size_t n = read_back(r, &mismatch);
	CHECK(n == nwant && !mismatch, "read back %zu of %zu events, mismatch %d", n, nwant,
	      mismatch);
	trace_reader_close(r);
}

/* A session at `path` with one image and one thread's stream. */
static void begin_stream(const char *path, struct trace_session *s, struct trace_stream *st)
{
	trace_session_create_replacing(s, path, "x", 1, 1 << 20);
	trace_session_new_image(s, 1);
	trace_stream_init(st, s, 1);
}

/* Ends the stream and its session and opens the trace (NULL: a failure). */
static struct trace_reader *end_and_open(const char *path, struct trace_session *s,
					 struct trace_stream *st)
{
	char err[256];
	trace_stream_destroy(st);
	trace_session_close(s);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "open %s: %s", path, err);
	return r;
}

/* Few functions and short gaps, as in a recursive hot loop: 3 bytes a call. */
static void test_compact(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	const int calls = 100000;
	begin_stream(path, &s, &st);
	uint64_t tick = 1000;
	for (int i = 0; i < calls; i++) {
		uint64_t fn = 0x401000 + (uint64_t)(i % 3) * 16;
		trace_stream_enter(&st, fn, tick += 40, 0);
		trace_stream_exit(&st, fn, tick += 50);
	}
	struct trace_reader *r = end_and_open(path, &s, &st);
	if (!r)
		return;
	double per_call = (double)r->event_bytes / calls;
	CHECK(per_call <= 3.01, "%.3f bytes per call", per_call);
	trace_reader_close(r);
}

/* Two hot functions whose addresses share a cache set are defined once
 * each, not at every call; a third in the set is defined again, as it must. */
static void test_fid_cache(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st);
	uint64_t same[3], n = 0;
	for (uint64_t a = 0x401000; n < 3; a += 16) /* fill the cache's first set */
		if (trace_stream_fid_set(&st, a) == trace_stream_fid_set(&st, 0x401000))
			same[n++] = a;
	uint64_t tick = 1000;
	for (int i = 0; i < 100; i++)
		for (int k = 0; k < 2; k++) {
			trace_stream_enter(&st, same[k], tick += 10, 0);
			trace_stream_exit(&st, same[k], tick += 10);
		}
	for (int k = 2; k < 4; k++) { /* C evicts A, which then comes back */
		trace_stream_enter(&st, same[k % 3], tick += 10, 0);
		trace_stream_exit(&st, same[k % 3], tick += 10);
	}
	struct trace_reader *r = end_and_open(path, &s, &st);
	if (!r)
		return;
	struct trace_cursor c;
	struct trace_event ev;
	int calls = 0;
	trace_cursor_init(&c, r, &r->threads[0]);
	while (trace_cursor_next(&c, &ev))
		calls += ev.type == TRACE_ENTER;
	CHECK(calls == 202 && c.own.ndict == 4,
	      "202 calls of 3 functions of one set: %d calls, %u definitions, want 4", calls,
	      c.own.ndict);
	trace_cursor_fini(&c);
	trace_reader_close(r);
}

/* A stream (begin_stream) with one call of each of 64 functions. */
static void begin_with_calls(const char *path, struct trace_session *s, struct trace_stream *st)
{
	begin_stream(path, s, st);
	uint64_t tick = 1000;
	for (uint64_t a = 0x401000; a < 0x401000 + 64 * 16; a += 16) {
		trace_stream_enter(st, a, tick += 10, 0);
		trace_stream_exit(st, a, tick += 10);
	}
}

/* How many of those 64 functions have a fid in the cache. */
static int cached_functions(struct trace_stream *st)
{
	int found = 0;
	for (uint64_t a = 0x401000; a < 0x401000 + 64 * 16; a += 16)
		found += trace_stream_cached_fid(st, a) >= 0;
	return found;
}

/* A new window forgets every fid without writing the cache (a fork child
 * would copy its pages): the cache's bytes are the same after, and no
 * address is found in it. */
static void test_fid_forget(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_with_calls(path, &s, &st);
	static uint8_t before[TRACE_FID_CACHE_SIZE * sizeof(struct trace_fid_slot)];
	size_t bytes = sizeof(before);
	memcpy(before, st.fids, bytes);
	CHECK(trace_stream_cached_fid(&st, 0x401000) >= 0, "a function just called has a fid");
	trace_stream_forget_functions(&st);
	int found = cached_functions(&st);
	CHECK(found == 0, "%d of 64 fids still found after the window's end", found);
	CHECK(memcmp(before, st.fids, bytes) == 0, "forgetting wrote the fid cache");
	/* Once every generation has been used, the first one's fids must not
	 * come back with it. */
	for (int w = 0; w < 300; w++) {
		trace_stream_forget_functions(&st);
		found += trace_stream_cached_fid(&st, 0x401000) >= 0;
	}
	CHECK(found == 0, "a fid of the first window found again %d times in 300 windows", found);
	trace_stream_destroy(&st);
	trace_session_close(&s);
}

/* Whether this system gives a fork child a MADV_WIPEONFORK page as zeros
 * (Linux since 4.14; not qemu-user, which runs the aarch64 build). */
static int wipe_on_fork_works(void)
{
	uint8_t *page =
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		return 0;
	page[0] = 1;
	int status = -1;
	pid_t pid = madvise(page, 4096, MADV_WIPEONFORK) == 0 ? fork() : -1;
	if (pid == 0)
		_exit(page[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	munmap(page, 4096);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The fid cache of a fork child is zeros, not its parent's pages shared
 * copy-on-write (which it and the parent would each fault and copy at
 * their next writes): the child finds no fid, and once its stream is
 * restarted every page of the cache is in.  The parent's cache is whole.
 * Where the system keeps no page from a fork child, the child must still
 * find none of its parent's fids in its first window. */
static void test_fid_fork(const char *path)
{
	int wiped = wipe_on_fork_works();
	struct trace_session s;
	struct trace_stream st;
	begin_with_calls(path, &s, &st);
	size_t bytes = TRACE_FID_CACHE_SIZE * sizeof(struct trace_fid_slot);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		int bad = 0;
		for (size_t i = 0; wiped && i < bytes; i++)
			bad |= ((const uint8_t *)st.fids)[i] != 0;
		trace_stream_fork_child(&st);
		trace_stream_forget_functions(&st); /* as its first window will */
		bad |= cached_functions(&st) != 0;
		unsigned char in[TRACE_FID_CACHE_SIZE * sizeof(struct trace_fid_slot) / 4096 + 1];
		size_t pages = bytes / 4096, resident = 0;
		if (mincore(st.fids, bytes, in) == 0)
			for (size_t i = 0; i < pages; i++)
				resident += in[i] & 1;
		_exit((bad ? 1 : 0) | (resident != pages ? 2 : 0) | (st.map ? 4 : 0));
	}
	int status = -1;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "fork child: status %#x (1: parent's fids seen, 2: cache not filled in, 4: the "
	      "parent's window kept)",
	      status);
	int found = cached_functions(&st);
	CHECK(found == 64, "the parent finds %d of its 64 fids after the fork", found);
	trace_stream_destroy(&st);
	trace_session_close(&s);
}

/* An exit that does not end the innermost call (longjmp) names its function. */
/* The first `max` events of the trace's first thread; returns how many. */
static int read_events(struct trace_reader *r, struct trace_event *ev, int max)
{
	struct trace_cursor c;
	int n = 0;
	trace_cursor_init(&c, r, &r->threads[0]);
	while (n < max && trace_cursor_next(&c, &ev[n]))
		n++;
	trace_cursor_fini(&c);
	return n;
}

/* An exit record carries what the program used, read back as written; a
 * process event this reader does not know is skipped, not taken for a start
 * of the image. */
static void test_process_usage(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st);
	trace_write_process(&s, PROCESS_START, 0, 1, 0, "/bin/prog", "prog", 5);
	trace_stream_enter(&st, 0xa0, 100, 0);
	trace_stream_exit(&st, 0xa0, 200);
	trace_write_process(&s, 99, 0, 0, 0, "/not/a/start", "x", 2);
	struct trace_process_usage u = {1500, 250, 65536, 5, 2};
	trace_write_exit_usage(&s, 3, &u);
	struct trace_reader *r = end_and_open(path, &s, &st);
	if (!r)
		return;
	const struct trace_image *im = r->nimages == 1 ? &r->images[0] : NULL;
	CHECK(r->nproblems == 0, "no problems, got %zu", r->nproblems);
	CHECK(im && im->how == PROCESS_START && strcmp(im->exe, "/bin/prog") == 0,
	      "the unknown event left the image as it began (%s)", im ? im->exe : "no image");
	CHECK(im && im->has_exit && im->exit_status == 3, "exit status 3");
	CHECK(im && im->has_usage && memcmp(&im->usage, &u, sizeof(u)) == 0,
	      "usage read back as written");
	trace_reader_close(r);
}

static void test_exit_at(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st);
	trace_stream_enter(&st, 0xa0, 100, 0);
	trace_stream_enter(&st, 0xb0, 200, 0);
	trace_stream_exit(&st, 0xa0, 300); /* b0 never returned */
	trace_stream_exit(&st, 0xc0, 400); /* nothing open any more: dropped */
	struct trace_reader *r = end_and_open(path, &s, &st);
	if (!r)
		return;
	struct trace_event ev[4];
	int n = read_events(r, ev, 4);
	CHECK(n == 3, "3 events, got %d", n);
	CHECK(n == 3 && ev[2].type == TRACE_EXIT && !ev[2].innermost && ev[2].address == 0xa0,
	      "the exit names 0xa0");
	trace_reader_close(r);
}

/* A longjmp to the frame whose stack pointer is 0x7000 (a's): the two calls
 * below it end in one UNWIND, and the next call is a's child. */
static void test_unwind(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st);
	trace_stream_enter(&st, 0xa0, 100, 0x7000);
	trace_stream_enter(&st, 0xb0, 200, 0x6ff0);
	trace_stream_enter(&st, 0xc0, 300, 0x6fe0);
	trace_stream_unwind_to(&st, 0x7000, 400, UINT32_MAX);
	CHECK(st.depth == 1, "a stays open alone, depth %u", st.depth);
	trace_stream_enter(&st, 0xd0, 500, 0x6ff0);
	trace_stream_exit(&st, 0xd0, 600);
	trace_stream_exit(&st, 0xa0, 700);
	trace_stream_unwind_to(&st, 0x9000, 800, UINT32_MAX); /* nothing open: nothing */
	struct trace_reader *r = end_and_open(path, &s, &st);
	if (!r)
		return;
	struct trace_event ev[8];
	int n = read_events(r, ev, 8);
	CHECK(n == 7, "7 events, got %d", n);
	CHECK(n >= 4 && ev[3].type == TRACE_UNWIND && ev[3].stay == 1,
	      "the fourth event leaves 1 call open");
	CHECK(n == 7 && ev[4].type == TRACE_ENTER && ev[4].address == 0xd0 && ev[5].innermost &&
		  ev[6].innermost,
	      "d0 then both exits, each of the innermost call");
	trace_reader_close(r);
}

static void copy_file(const char *from, const char *to, size_t len)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n, total = 0;
	while (total < len && (n = fread(buf, 1, sizeof(buf), in)) > 0) {
		if (n > len - total)
			n = len - total;
		fwrite(buf, 1, n, out);
		total += n;
	}
	fclose(in);
	fclose(out);
}

static void test_truncated(const char *path, const char *cut)
{
	struct stat st;
	stat(path, &st);
	size_t sizes[] = {0,
			  100,
			  TRACE_HEADER_SIZE - 1,
			  TRACE_HEADER_SIZE + 10,
			  (size_t)st.st_size / 2,
			  (size_t)st.st_size - 3};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char err[256] = "";
		copy_file(path, cut, sizes[i]);
		struct trace_reader *r = trace_reader_open(cut, err, sizeof(err));
		if (!r) {
			CHECK(sizes[i] < TRACE_HEADER_SIZE && strstr(err, cut),
			      "cut at %zu: error '%s'", sizes[i], err);
			continue;
		}
		/* The prefix, then maybe (after a gap) the window each thread was
		 * writing last: that one is early in the file. */
		int mismatch, gaps;
		size_t n = read_back_gaps(r, &mismatch, &gaps);
		CHECK(!mismatch && n <= nwant + (size_t)gaps, "cut at %zu: a prefix (%zu events)",
		      sizes[i], n);
		CHECK(sizes[i] >= (size_t)st.st_size - 8 || r->nproblems > 0,
		      "cut at %zu: truncation reported", sizes[i]);
		trace_reader_close(r);
	}
}

/* Offset of the event window of sequence number `seq`, or 0. */
static uint64_t window_offset(const char *path, uint32_t seq)
{
	char err[256];
	uint64_t off = 0;
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	for (size_t w = 0; r && w < r->threads[0].nwindows; w++)
		if (r->threads[0].windows[w].seq == seq)
			off = r->threads[0].windows[w].offset;
	if (r)
		trace_reader_close(r);
	return off;
}

/* Appends `len` bytes as claimed space of the trace (next_offset grows). */
static void append_claimed(const char *path, const void *bytes, size_t len)
{
	FILE *f = fopen(path, "r+b");
	struct trace_file_header h;
	fread(&h, sizeof(h), 1, f);
	fseek(f, (long)h.next_offset, SEEK_SET);
	fwrite(bytes, 1, len, f);
	h.next_offset += len;
	fseek(f, 0, SEEK_SET);
	fwrite(&h, sizeof(h), 1, f);
	fclose(f);
}

/* The length of the window numbered `seq` of the trace at `path`, or 0. */
static uint32_t window_length(const char *path, uint32_t seq)
{
	uint64_t off = window_offset(path, seq);
	struct trace_chunk h = {0};
	FILE *f = off ? fopen(path, "rb") : NULL;
	if (!f)
		return 0;
	if (fseek(f, (long)off, SEEK_SET) != 0 || fread(&h, sizeof(h), 1, f) != 1)
		h.length = 0;
	fclose(f);
	return h.length;
}

/* A thread's first windows are small (a shell's fork child writes a page
 * or two, and the file system zeroes what it claims): 16 KiB, then 64. */
static void test_window_sizes(const char *path)
{
	write_sample(path, 1 << 20);
	uint32_t first = window_length(path, 0), second = window_length(path, 1);
	CHECK(first == 16u << 10 && second == 64u << 10, "first windows %u and %u bytes", first,
	      second);
}

/* A full window is copied out and its pages reused (trace_writer.c).  A
 * writer killed half-way leaves the window twice, or the original marked
 * CHUNK_SKIP over stale bytes: either way every event is read once. */
static void test_window_copies(const char *path, const char *copy)
{
	char err[256];
	write_sample(path, 16 << 10);
	uint64_t off = window_offset(path, 2);
	CHECK(off != 0, "window 2 found");
	if (!off)
		return;
	static uint8_t window[1 << 16];
	struct trace_chunk h;
	FILE *f = fopen(path, "rb");
	fseek(f, (long)off, SEEK_SET);
	fread(&h, sizeof(h), 1, f);
	fseek(f, (long)off, SEEK_SET);
	CHECK(h.length <= sizeof(window) && fread(window, 1, h.length, f) == h.length,
	      "window 2 read");
	fclose(f);

	copy_file(path, copy, (size_t)-1);
	append_claimed(copy, window, h.length); /* killed before the original let go */
	h.kind = CHUNK_SKIP;			/* killed while the original was reset */
	memcpy(window, &h, sizeof(h));
	append_claimed(copy, window, h.length);

	struct trace_reader *r = trace_reader_open(copy, err, sizeof(err));
	CHECK(r != NULL, "open: %s", err);
	if (!r)
		return;
	CHECK(r->nproblems == 0, "no problems, got %zu (%s)", r->nproblems,
	      r->nproblems ? r->problems[0].message : "");
	int mismatch;
	size_t n = read_back(r, &mismatch);
	CHECK(n == nwant && !mismatch, "read back %zu of %zu events once each, mismatch %d", n,
	      nwant, mismatch);
	trace_reader_close(r);

	/* A window with the same number that began at another time is not a
	 * copy (a thread id used twice): it is kept, and reported. */
	h.kind = CHUNK_EVENTS;
	h.base_tick += 1000;
	memcpy(window, &h, sizeof(h));
	append_claimed(copy, window, h.length);
	r = trace_reader_open(copy, err, sizeof(err));
	CHECK(r && r->nproblems == 1 &&
		  strstr(r->problems[0].message, "two event windows numbered 2"),
	      "a second window 2 reported: %s",
	      r && r->nproblems ? r->problems[0].message : "none");
	if (r)
		trace_reader_close(r);
}

static void test_corrupted(const char *path, const char *bad)
{
	struct stat st;
	stat(path, &st);
	srand(42);
	int reported = 0;
	for (int round = 0; round < 200; round++) {
		copy_file(path, bad, (size_t)st.st_size);
		FILE *f = fopen(bad, "r+b");
		for (int k = 0; k < 1 + round % 8; k++) {
			long at = TRACE_HEADER_SIZE + rand() % (st.st_size - TRACE_HEADER_SIZE);
			fseek(f, at, SEEK_SET);
			fputc(rand() & 0xff, f);
		}
		fclose(f);
		char err[256];
		struct trace_reader *r = trace_reader_open(bad, err, sizeof(err));
		if (!r)
			continue;
		int mismatch;
		read_back(r, &mismatch);
		reported += r->nproblems > 0;
		trace_reader_close(r);
	}
	CHECK(reported > 0, "corruption reported in some of 200 damaged copies");
	passed++; /* surviving 200 damaged files without a crash */
}

static void test_foreign(const char *other)
{
	char err[256];
	FILE *f = fopen(other, "w");
	fputs("this is not a trace, just some text that is long enough to be read\n", f);
	fclose(f);
	CHECK(!trace_reader_open(other, err, sizeof(err)) && strstr(err, "not a calltrace trace"),
	      "foreign file: '%s'", err);
	CHECK(!trace_reader_open("/nonexistent/x.trace", err, sizeof(err)) &&
		  strstr(err, "No such file"),
	      "missing file: '%s'", err);
}

/* Text from a trace made safe for a terminal: control characters (C0,
 * DEL, C1) and bytes that are not UTF-8 as \xHH, UTF-8 kept, cut with
 * "..." only when it does not fit. */
static void test_printable(void)
{
	static const char *const cases[][2] = {
	    {"plain /path", "plain /path"},
	    {"a\x1b[2J\a\x7f", "a\\x1b[2J\\x07\\x7f"},
	    {"caf\xc3\xa9", "caf\xc3\xa9"},
	    {"\xc2\x9b"
	     "1m",
	     "\\xc2\\x9b1m"}, /* C1 CSI */
	    {"\xff\xc3", "\\xff\\xc3"},
	};
	char buf[64];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(strcmp(printable(cases[i][0], buf, sizeof(buf)), cases[i][1]) == 0,
		      "printable case %zu: got %s", i, buf);
	CHECK(strcmp(printable("abcde", buf, 6), "abcde") == 0, "fits exactly: %s", buf);
	CHECK(strcmp(printable("abcdef", buf, 6), "ab...") == 0, "cut: %s", buf);
	CHECK(strcmp(printable("ab\x01", buf, 6), "ab...") == 0, "cut before an escape: %s", buf);
	CHECK(strcmp(printable("abc", buf, 2), "") == 0, "too small for anything: '%s'", buf);
}

/* The counter's rate: a quarter of a millisecond's measure agrees with one
 * taken across a 20 ms sleep (within 0.5%: either end of that one may be
 * a few microseconds off under load); CLOCK_MONOTONIC's is 1e9. */
static void test_clock_rate(void)
{
	setenv("CALLTRACE_CLOCK", "monotonic", 1);
	trace_clock_init();
	CHECK(trace_clock_calibrate(250) == 1000000000u, "CLOCK_MONOTONIC's rate");
	unsetenv("CALLTRACE_CLOCK");
	if (trace_clock_init() != TRACE_CLOCK_TSC)
		return;
	uint64_t quick = trace_clock_calibrate(250);
	uint64_t ns0 = trace_clock_monotonic_ns(), t0 = trace_clock_tick();
	struct timespec nap = {0, 20000000};
	nanosleep(&nap, NULL);
	uint64_t ns1 = trace_clock_monotonic_ns(), t1 = trace_clock_tick();
	double slow = (double)(t1 - t0) * 1e9 / (double)(ns1 - ns0);
	CHECK(quick > slow * 0.995 && quick < slow * 1.005, "rate %llu Hz, over 20 ms %.0f Hz",
	      (unsigned long long)quick, slow);
}

int main(void)
{
	char path[4200], cut[4200], other[4200];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/calltrace-test-format-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/a.trace", dir);
	snprintf(cut, sizeof(cut), "%s/cut.trace", dir);
	snprintf(other, sizeof(other), "%s/other", dir);
	test_round_trip(path);
	test_window_copies(other, cut);
	test_window_sizes(other);
	test_truncated(path, cut);
	test_compact(other);
	test_exit_at(other);
	test_process_usage(other);
	test_unwind(other);
	test_fid_cache(other);
	test_fid_forget(other);
	test_fid_fork(other);
	test_corrupted(path, cut);
	test_foreign(other);
	test_printable();
	test_clock_rate();
	unlink(path);
	unlink(cut);
	unlink(other);
	rmdir(dir);
	return CHECK_SUMMARY("test_format");
}
