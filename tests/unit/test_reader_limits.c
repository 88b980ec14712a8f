/*
 * test_reader_limits.c - the reader at the edges of what a file can hold:
 * a time delta too large for any clock saturates, a hole of gigabytes is
 * skipped without touching its pages and in no memory, a FIFO or a directory is refused at
 * once, a header's lost-window count is reported as a count (never as
 * bytes missing), and where events are missing (a window gone, a corrupt
 * window) the calls open there are counted as cut, not passed off as
 * finished.
 */
#include "../../src/analysis/walker.h"
#include "../../src/format/trace_reader.h"
#include "../../src/format/trace_writer.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char dir[4096];

/* A session at `path` with one image and one thread's stream. */
static void begin_stream(const char *path, struct trace_session *s, struct trace_stream *st,
			 uint32_t window)
{
	trace_session_create_replacing(s, path, "x", 1, window);
	trace_session_new_image(s, 1);
	trace_stream_init(st, s, 7);
}

static void end_stream(struct trace_session *s, struct trace_stream *st)
{
	trace_stream_destroy(st);
	trace_session_close(s);
}

static struct trace_reader *open_trace(const char *path)
{
	char err[256];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "open %s: %s", path, err);
	return r;
}

/* Writes `len` bytes at `off` of the file. */
static void patch(const char *path, uint64_t off, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, bytes, len, (off_t)off) == (ssize_t)len, "patch %s", path);
	close(fd);
}

static void read_file(const char *path, uint8_t **data, size_t *len)
{
	struct stat st;
	stat(path, &st);
	*len = (size_t)st.st_size;
	*data = malloc(*len);
	int fd = open(path, O_RDONLY);
	CHECK(read(fd, *data, *len) == (ssize_t)*len, "read %s", path);
	close(fd);
}

/* A clock of one tick a second and a delta of 2^40 ticks: 10^21 ns, more
 * than 64 bits hold.  The exit's time saturates. */
static void test_time_saturates(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st, 1 << 20);
	uint64_t now = trace_clock_tick();
	trace_stream_enter(&st, 0xa0, now, 0);
	trace_stream_exit(&st, 0xa0, now + (1ull << 40));
	end_stream(&s, &st);
	struct trace_file_header h;
	uint8_t *data;
	size_t len;
	read_file(path, &data, &len);
	memcpy(&h, data, sizeof(h));
	free(data);
	h.tick_hz = 1;
	patch(path, 0, &h, sizeof(h));
	struct trace_reader *r = open_trace(path);
	if (!r)
		return;
	struct trace_cursor c;
	struct trace_event ev[2];
	trace_cursor_init(&c, r, &r->threads[0]);
	int n = trace_cursor_next(&c, &ev[0]) + trace_cursor_next(&c, &ev[1]);
	trace_cursor_fini(&c);
	CHECK(n == 2 && ev[1].type == TRACE_EXIT && ev[1].time_ns == TRACE_TIME_MAX,
	      "the exit at TRACE_TIME_MAX, got %llu",
	      n == 2 ? (unsigned long long)ev[1].time_ns : 0);
	trace_reader_close(r);
}

/* Events of every thread, walked without symbols' files. */
static struct walk_stats walk(struct trace_reader *r)
{
	struct walk_stats stats;
	struct symbol_table *symbols = symbol_table_new();
	struct walk_consumer none = {0};
	walker_run(r, symbols, NULL, &none, &stats);
	symbol_table_free(symbols);
	return stats;
}

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL test_reader_limits: took too long\n";
	ssize_t unused = write(1, msg, sizeof(msg) - 1);
	(void)unused;
	_exit(1);
}

/* 8 GiB of hole between the header and the chunks (a recording whose
 * claims ran far ahead of its writes): read in well under a second, with
 * a few MiB of memory. */
static void test_hole(const char *path, const char *holed)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st, 1 << 20);
	for (int i = 0; i < 1000; i++) {
		trace_stream_enter(&st, 0xa0, 100 + 10 * (uint64_t)i, 0);
		trace_stream_exit(&st, 0xa0, 105 + 10 * (uint64_t)i);
	}
	end_stream(&s, &st);
	uint8_t *data;
	size_t len;
	read_file(path, &data, &len);
	const uint64_t hole = 8ull << 30;
	int fd = open(holed, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(pwrite(fd, data, TRACE_HEADER_SIZE, 0) == TRACE_HEADER_SIZE &&
		  pwrite(fd, data + TRACE_HEADER_SIZE, len - TRACE_HEADER_SIZE,
			 (off_t)(TRACE_HEADER_SIZE + hole)) == (ssize_t)(len - TRACE_HEADER_SIZE),
	      "write the holed copy");
	close(fd);
	free(data);
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	alarm(60); /* a reader that hangs fails; a busy machine does not */
	struct trace_reader *r = open_trace(holed);
	struct walk_stats stats = r ? walk(r) : (struct walk_stats){0};
	alarm(0);
	getrusage(RUSAGE_SELF, &after);
	CHECK(stats.calls == 1000, "1000 calls after the hole, got %llu",
	      (unsigned long long)stats.calls);
	/* Skipped, not read: reading it would fault in its 2 million pages.
	 * (Page faults, not seconds: the machine's load changes no count.) */
	long faults = after.ru_minflt - before.ru_minflt + after.ru_majflt - before.ru_majflt;
	CHECK(faults < 20000, "8 GiB hole read with %ld page faults", faults);
	CHECK(after.ru_maxrss - before.ru_maxrss < 64 * 1024, "memory grew %ld KiB",
	      after.ru_maxrss - before.ru_maxrss);
	CHECK(r && r->unwritten_bytes == hole && r->nproblems == 0,
	      "the hole is unwritten space, not a problem");
	trace_reader_close(r);
	unlink(holed);
}

/* A header that says 1834567 windows could not be claimed (each failed
 * claim also advanced next_offset, here to 32 GB): reported as that count,
 * not as 32 GB truncated. */
static void test_lost_windows(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st, 1 << 20);
	trace_stream_enter(&st, 0xa0, 100, 0);
	trace_stream_exit(&st, 0xa0, 200);
	end_stream(&s, &st);
	uint64_t next = 32000000000ull;
	uint32_t lost = 1834567;
	patch(path, offsetof(struct trace_file_header, next_offset), &next, sizeof(next));
	patch(path, offsetof(struct trace_file_header, lost_windows), &lost, sizeof(lost));
	struct trace_reader *r = open_trace(path);
	if (!r)
		return;
	CHECK(r->losses.lost_windows == lost && r->losses.truncated_bytes == 0,
	      "lost %llu, truncated %llu", (unsigned long long)r->losses.lost_windows,
	      (unsigned long long)r->losses.truncated_bytes);
	CHECK(r->nproblems == 1 && strstr(r->problems[0].message, "1834567 event windows lost") &&
		  !strstr(r->problems[0].message, "bytes"),
	      "one problem, the count: %s", r->nproblems ? r->problems[0].message : "none");
	trace_reader_close(r);

	lost = 0; /* no windows lost: the file is 32 GB short */
	patch(path, offsetof(struct trace_file_header, lost_windows), &lost, sizeof(lost));
	r = open_trace(path);
	if (!r)
		return;
	CHECK(r->losses.truncated_bytes > 31000000000ull && r->nproblems == 1 &&
		  strstr(r->problems[0].message, "truncated"),
	      "truncation reported: %s", r->nproblems ? r->problems[0].message : "none");
	trace_reader_close(r);
}

/* A FIFO would block the open forever; a directory, an empty file, a cut
 * header are refused with their reason. */
static void test_not_traces(const char *path)
{
	char fifo[4200], err[256];
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	mkfifo(fifo, 0600);
	alarm(5);
	CHECK(!trace_reader_open(fifo, err, sizeof(err)) && strstr(err, "pipe"), "fifo: %s", err);
	alarm(0);
	unlink(fifo);
	CHECK(!trace_reader_open(dir, err, sizeof(err)) && strstr(err, "is a directory"),
	      "directory: %s", err);
	close(open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644));
	CHECK(!trace_reader_open(path, err, sizeof(err)) && strstr(err, "empty file"), "empty: %s",
	      err);
	struct trace_file_header h = {.magic = TRACE_FILE_MAGIC};
	patch(path, 0, &h, 100);
	CHECK(!trace_reader_open(path, err, sizeof(err)) &&
		  strstr(err, "truncated inside its header"),
	      "cut header: %s", err);
}

/* One call open over many windows, whose window 2 is then lost (its
 * header zeroed) or damaged: the call is cut there, and counted. */
static void write_open_call(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	begin_stream(path, &s, &st, 16 << 10);
	uint64_t tick = 100;
	trace_stream_enter(&st, 0xa0, tick, 0);
	for (int i = 0; i < 30000; i++) {
		trace_stream_enter(&st, 0xb0 + (uint64_t)(i % 5) * 16, tick += 3, 0);
		trace_stream_exit(&st, 0xb0 + (uint64_t)(i % 5) * 16, tick += 3);
	}
	trace_stream_exit(&st, 0xa0, tick += 3);
	end_stream(&s, &st);
}

static uint64_t window_offset(struct trace_reader *r, uint32_t seq)
{
	for (size_t w = 0; r && w < r->threads[0].nwindows; w++)
		if (r->threads[0].windows[w].seq == seq)
			return r->threads[0].windows[w].offset;
	return 0;
}

static void test_cut_calls(const char *path)
{
	write_open_call(path);
	struct trace_reader *r = open_trace(path);
	uint64_t off = window_offset(r, 2);
	struct walk_stats stats = r ? walk(r) : (struct walk_stats){0};
	CHECK(stats.calls == 30001 && stats.unfinished == 0 && r->nproblems == 0,
	      "whole: %llu calls, %llu unfinished", (unsigned long long)stats.calls,
	      (unsigned long long)stats.unfinished);
	trace_reader_close(r);
	CHECK(off != 0, "window 2 found");

	uint32_t zero = 0;
	patch(path, off, &zero, sizeof(zero)); /* its magic: the window is gone */
	r = open_trace(path);
	stats = r ? walk(r) : (struct walk_stats){0};
	CHECK(r && r->losses.missing_windows == 1, "one window missing");
	CHECK(stats.cut == 1, "the open call cut at the gap: %llu", (unsigned long long)stats.cut);
	trace_reader_close(r);

	write_open_call(path);
	uint8_t junk[64];
	memset(junk, 0xff, sizeof(junk)); /* an enter whose varints never end */
	patch(path, off + sizeof(struct trace_chunk) + 100, junk, sizeof(junk));
	r = open_trace(path);
	stats = r ? walk(r) : (struct walk_stats){0};
	CHECK(r && r->losses.corrupt >= 1, "the corrupt window counted");
	CHECK(stats.cut >= 1, "the calls open at the damage cut: %llu",
	      (unsigned long long)stats.cut);
	trace_reader_close(r);
}

int main(void)
{
	char path[4200], other[4200];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/calltrace-test-limits-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	snprintf(path, sizeof(path), "%s/a.trace", dir);
	snprintf(other, sizeof(other), "%s/b.trace", dir);
	test_time_saturates(path);
	test_hole(path, other);
	test_lost_windows(path);
	test_not_traces(path);
	test_cut_calls(path);
	unlink(path);
	unlink(other);
	rmdir(dir);
	return CHECK_SUMMARY("test_reader_limits");
}
