/*
 * test_kernel_merge.c - kernel chunks read back merged with the thread's
 * own events: the exact order (the tie rule included), each chunk given to
 * the right image (before the image's first record, across an exec), a
 * thread only the kernel saw kept, a corrupt or missing chunk reported and
 * the calls open there ended, the kernel counts for info.
 */
#include "../../src/analysis/walker.h"
#include "../../src/format/kernel_stream.h"
#include "../../src/format/trace_reader.h"
#include "../../src/format/trace_writer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

static char dir[4096];
static uint64_t base;
static uint32_t shift;

/* Tick of time unit n after the test's start. */
#define T(n) (base + ((uint64_t)(n) << shift))
#define SYS(nr) TRACE_CALL_ADDRESS(CALL_SYSCALL, nr)
#define OFF(r) TRACE_CALL_ADDRESS(CALL_OFFCPU, r)

static void begin(const char *path, struct trace_session *s)
{
	trace_session_create_replacing(s, path, "prog", 5, 1 << 20);
	shift = s->tick_shift;
	base = trace_clock_tick();
}

static uint32_t new_image(struct trace_session *s, uint32_t pid, uint32_t how, uint32_t parent)
{
	uint32_t id = trace_session_new_image(s, pid);
	trace_write_process(s, how, parent, 1, 0, "/bin/prog", "prog", 5);
	return id;
}

/* Lets the clock move on: what follows is surely later than what came
 * before (ordering only; nothing here measures time). */
static void later(void)
{
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
}

static struct trace_reader *open_trace(const char *path)
{
	char err[256];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "open %s: %s", path, err);
	return r;
}

static const struct trace_thread *find_thread(const struct trace_reader *r, uint32_t image,
					      uint32_t tid)
{
	for (size_t i = 0; i < r->nthreads; i++)
		if (r->threads[i].image == image && r->threads[i].tid == tid)
			return &r->threads[i];
	return NULL;
}

/* An expected event: type, address (0: innermost exit), from the kernel. */
struct want {
	enum trace_event_type type;
	uint64_t address;
	int kernel;
};

#define MAX_EVENTS 64

/* Reads thread t's events and compares them with want[0..n). */
static void expect_events(struct trace_reader *r, const struct trace_thread *t,
			  const struct want *want, size_t n, const char *what)
{
	struct trace_cursor c;
	struct trace_event ev;
	size_t got = 0;
	int same = 1, fids = 1;
	uint64_t last = 0;
	if (!t) {
		CHECK(0, "%s: no such thread", what);
		return;
	}
	trace_cursor_init(&c, r, t);
	while (trace_cursor_next(&c, &ev)) {
		if (got < n) {
			const struct want *w = &want[got];
			uint64_t address = ev.type == TRACE_EXIT && ev.innermost ? 0 : ev.address;
			if (ev.type != w->type || ev.kernel != w->kernel ||
			    ((ev.type == TRACE_ENTER || ev.type == TRACE_EXIT) &&
			     address != w->address)) {
				printf("%s: event %zu: type %d address %#llx kernel %d\n", what,
				       got, ev.type, (unsigned long long)address, ev.kernel);
				same = 0;
			}
		}
		if (ev.type == TRACE_ENTER)
			fids &= (ev.fid & 1) == (uint32_t)ev.kernel &&
				ev.call_kind == TRACE_CALL_KIND(ev.address);
		same &= ev.time_ns >= last;
		last = ev.time_ns;
		got++;
	}
	trace_cursor_fini(&c);
	CHECK(same && got == n, "%s: %zu events as expected of %zu", what, got, n);
	CHECK(fids, "%s: kernel fids odd, the thread's even, kinds set", what);
}

/* A thread's calls and its system calls and off-CPU intervals, in exact
 * order: on equal times a kernel exit comes before the thread's event, a
 * kernel enter after it; a kernel chunk before the image's first record
 * belongs to the image. */
static void test_merge_order(const char *path)
{
	struct trace_session s;
	struct trace_stream st;
	struct kernel_stream ks;
	uint64_t args[6] = {1, 2, 3, 4, 5, 6};
	begin(path, &s);
	kernel_stream_init(&ks, &s, 100, 100, 0);
	kernel_stream_syscall_enter(&ks, 0, T(5), args); /* the loader's, before any record */
	kernel_stream_syscall_exit(&ks, T(8), 0);
	kernel_stream_flush(&ks);
	later();
	new_image(&s, 100, PROCESS_START, 0);
	trace_stream_init(&st, &s, 100);
	trace_stream_enter(&st, 0x1000, T(10), 0); /* main */
	trace_stream_enter(&st, 0x1100, T(20), 0); /* f */
	trace_stream_exit(&st, 0x1100, T(50));
	trace_stream_enter(&st, 0x1200, T(60), 0); /* g */
	trace_stream_exit(&st, 0x1200, T(70));
	trace_stream_exit(&st, 0x1000, T(100));
	kernel_stream_syscall_enter(&ks, 1, T(20), args); /* as f enters: inside f */
	kernel_stream_offcpu_enter(&ks, OFFCPU_BLOCKED, T(30));
	kernel_stream_offcpu_exit(&ks, T(40));
	kernel_stream_syscall_exit(&ks, T(50), -4);	  /* as f exits: before */
	kernel_stream_syscall_enter(&ks, 3, T(70), args); /* as g exits: after */
	kernel_stream_syscall_exit(&ks, T(80), 0);
	kernel_stream_fini(&ks);
	trace_stream_destroy(&st);
	trace_stream_init(&st, &s, 101); /* a thread without kernel chunks */
	trace_stream_enter(&st, 0x1300, T(10), 0);
	trace_stream_enter(&st, 0x1400, T(20), 0);
	trace_stream_exit(&st, 0x1400, T(30));
	trace_stream_exit(&st, 0x1300, T(40));
	trace_stream_destroy(&st);
	trace_session_close(&s);

	struct trace_reader *r = open_trace(path);
	if (!r)
		return;
	CHECK(r->nproblems == 0, "no problems (%s)", r->nproblems ? r->problems[0].message : "");
	CHECK(r->nthreads == 2 && r->threads[0].nkernel_windows == 2 &&
		  r->threads[1].nkernel_windows == 0,
	      "two threads, 2 kernel chunks in the first");
	struct trace_cursor plain;
	struct trace_event pe;
	uint32_t fids[4], n = 0;
	trace_cursor_init(&plain, r, &r->threads[1]);
	while (trace_cursor_next(&plain, &pe))
		if (n < 4 && pe.type == TRACE_ENTER && !pe.kernel && pe.call_kind == CALL_FUNCTION)
			fids[n++] = pe.fid;
	CHECK(n == 2 && fids[0] == 0 && fids[1] == 1 && plain.window_serial == 1 &&
		  plain.events == 4,
	      "a thread without kernel chunks reads as ever: fids as written");
	trace_cursor_fini(&plain);
	CHECK(r->kernel_chunks == 2 && r->kernel_events == 8 && r->threads[0].kernel_events == 8,
	      "kernel counts: %llu chunks, %llu events", (unsigned long long)r->kernel_chunks,
	      (unsigned long long)r->kernel_events);
	const struct want want[] = {
	    {TRACE_ENTER, SYS(0), 1}, {TRACE_EXIT, SYS(0), 1},	{TRACE_ENTER, 0x1000, 0},
	    {TRACE_ENTER, 0x1100, 0}, {TRACE_ENTER, SYS(1), 1}, {TRACE_ENTER, OFF(1), 1},
	    {TRACE_EXIT, OFF(1), 1},  {TRACE_EXIT, SYS(1), 1},	{TRACE_EXIT, 0, 0},
	    {TRACE_ENTER, 0x1200, 0}, {TRACE_EXIT, 0, 0},	{TRACE_ENTER, SYS(3), 1},
	    {TRACE_EXIT, SYS(3), 1},  {TRACE_EXIT, 0, 0},
	};
	expect_events(r, &r->threads[0], want, sizeof(want) / sizeof(want[0]), "merge");

	/* The values come along, and the walker sees one clean nesting. */
	struct trace_cursor c;
	struct trace_event ev;
	int values = 0;
	trace_cursor_init(&c, r, &r->threads[0]);
	while (trace_cursor_next(&c, &ev))
		if (ev.kernel && ev.type == TRACE_EXIT && ev.address == SYS(1))
			values = ev.values_len == KERNEL_SYSCALL_RET_BYTES && ev.values[2] == 0xfc;
	trace_cursor_fini(&c);
	CHECK(values, "the raw return -4 of the system call");
	struct walk_stats stats;
	struct walk_consumer none = {0};
	struct symbol_table *symbols = symbol_table_new();
	walker_run(r, symbols, NULL, &none, &stats);
	symbol_table_free(symbols);
	CHECK(stats.calls == 9 && stats.unmatched == 0 && stats.unfinished == 0 &&
		  stats.max_depth == 4,
	      "walker: %llu calls, %llu unmatched, %llu unfinished, depth %llu",
	      (unsigned long long)stats.calls, (unsigned long long)stats.unmatched,
	      (unsigned long long)stats.unfinished, (unsigned long long)stats.max_depth);
	trace_reader_close(r);
}

/* An exec: the old image's chunks stay with it; from the exec on (the
 * loader's system calls, before the new image's first record) they are the
 * new image's.  A thread the runtime did not record, and a process it did
 * not, are kept as threads of their own. */
static void test_exec_and_strangers(const char *path, int mark_exec)
{
	struct trace_session s;
	struct trace_stream st;
	struct kernel_stream ks, other, stranger;
	uint64_t args[6] = {0};
	begin(path, &s);
	uint32_t a = new_image(&s, 200, PROCESS_START, 0);
	later();
	uint64_t t = trace_clock_tick();
	trace_stream_init(&st, &s, 200);
	trace_stream_enter(&st, 0x2000, t, 0); /* main of the old image, never returns */
	trace_stream_destroy(&st);
	kernel_stream_init(&ks, &s, 200, 200, 0);
	kernel_stream_syscall_enter(&ks, 1, t + 2, args);
	kernel_stream_syscall_exit(&ks, t + 3, 1);
	kernel_stream_syscall_enter(&ks, 59, t + 10, args); /* execve */
	if (mark_exec)
		kernel_stream_exec(&ks);
	else
		kernel_stream_flush(&ks);
	later();
	t = trace_clock_tick();
	CHECK(kernel_stream_syscall_exit(&ks, t, 0) == (mark_exec ? -1 : 0),
	      "execve's return after the exec mark ends nothing");
	kernel_stream_syscall_enter(&ks, 9, t + 1, args); /* the loader's mmap */
	kernel_stream_syscall_exit(&ks, t + 2, 0x7f00);
	kernel_stream_flush(&ks);
	later();
	uint32_t b = new_image(&s, 200, PROCESS_EXEC, a);
	later();
	t = trace_clock_tick();
	trace_stream_init(&st, &s, 200);
	trace_stream_enter(&st, 0x3000, t, 0);
	trace_stream_exit(&st, 0x3000, t + (5u << shift));
	trace_stream_destroy(&st);
	kernel_stream_syscall_enter(&ks, 3, t + (2u << shift), args);
	kernel_stream_syscall_exit(&ks, t + (3u << shift), 0);
	kernel_stream_fini(&ks);
	kernel_stream_init(&other, &s, 200, 202, 0); /* a thread the runtime missed */
	kernel_stream_offcpu_enter(&other, OFFCPU_PREEMPTED, t);
	kernel_stream_offcpu_exit(&other, t + 1);
	kernel_stream_fini(&other);
	kernel_stream_init(&stranger, &s, 300, 301, 0); /* a process it did not record */
	kernel_stream_syscall_enter(&stranger, 0, t, args);
	kernel_stream_syscall_exit(&stranger, t + 1, 0);
	kernel_stream_fini(&stranger);
	trace_session_close(&s);

	struct trace_reader *r = open_trace(path);
	if (!r)
		return;
	CHECK(r->nproblems == 0, "exec: no problems (%s)",
	      r->nproblems ? r->problems[0].message : "");
	const struct want old_image[] = {
	    {TRACE_ENTER, 0x2000, 0},
	    {TRACE_ENTER, SYS(1), 1},
	    {TRACE_EXIT, SYS(1), 1},
	    {TRACE_ENTER, SYS(59), 1},
	};
	const struct want new_image_events[] = {
	    {TRACE_ENTER, SYS(9), 1}, {TRACE_EXIT, SYS(9), 1}, {TRACE_ENTER, 0x3000, 0},
	    {TRACE_ENTER, SYS(3), 1}, {TRACE_EXIT, SYS(3), 1}, {TRACE_EXIT, 0, 0},
	};
	if (mark_exec) {
		expect_events(r, find_thread(r, a, 200), old_image, 4, "exec: old image");
		expect_events(r, find_thread(r, b, 200), new_image_events, 6, "exec: new image");
	} else {
		/* Without the mark the loader's calls go to the old image:
		 * its first record is all the reader knows of the exec. */
		const struct trace_thread *t_a = find_thread(r, a, 200),
					  *t_b = find_thread(r, b, 200);
		CHECK(t_a && t_b && t_a->nkernel_windows == 2 && t_b->nkernel_windows == 1,
		      "unmarked exec: the loader's chunk stays with the old image");
		expect_events(r, t_b, new_image_events + 2, 4, "unmarked exec: new image");
	}
	const struct trace_thread *missed = find_thread(r, b, 202);
	const struct want missed_events[] = {{TRACE_ENTER, OFF(0), 1}, {TRACE_EXIT, OFF(0), 1}};
	expect_events(r, missed, missed_events, 2, "a thread the runtime missed");
	const struct trace_thread *alone = find_thread(r, TRACE_KERNEL_ONLY_IMAGE(300), 301);
	const struct trace_image *im = trace_reader_image(r, TRACE_KERNEL_ONLY_IMAGE(300));
	CHECK(alone && alone->pid == 300 && im && im->kernel_only && im->pid == 300,
	      "a process only the kernel saw has an image and a thread");
	const struct want alone_events[] = {{TRACE_ENTER, SYS(0), 1}, {TRACE_EXIT, SYS(0), 1}};
	expect_events(r, alone, alone_events, 2, "a process only the kernel saw");
	struct walk_filters only_300 = {.pids = {300}, .npids = 1};
	struct walk_stats stats;
	struct walk_consumer none = {0};
	struct symbol_table *symbols = symbol_table_new();
	walker_run(r, symbols, &only_300, &none, &stats);
	symbol_table_free(symbols);
	CHECK(stats.calls == 1, "the walker walks it: %llu calls", (unsigned long long)stats.calls);
	trace_reader_close(r);
}

/* The offsets of the trace's kernel chunks, in file order. */
static size_t kernel_chunks(const char *path, uint64_t *offsets, size_t max)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	uint64_t off = TRACE_HEADER_SIZE;
	struct trace_chunk c;
	while (n < max && pread(fd, &c, sizeof(c), (off_t)off) == (ssize_t)sizeof(c) &&
	       c.magic == TRACE_CHUNK_MAGIC && c.length >= sizeof(c)) {
		if (c.kind == CHUNK_KERNEL)
			offsets[n++] = off;
		off += c.length;
	}
	close(fd);
	return n;
}

static void patch(const char *path, uint64_t off, const void *bytes, size_t len)
{
	int fd = open(path, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, bytes, len, (off_t)off) == (ssize_t)len, "patch %s", path);
	close(fd);
}

/* Three kernel chunks of a thread; a system call open across the middle
 * one.  The middle one corrupt: a problem, the chunk skipped, the open call
 * ended where events are missing.  The middle one gone: the same, counted
 * as missing. */
static void test_damaged(const char *path, int corrupt)
{
	struct trace_session s;
	struct trace_stream st;
	struct kernel_stream ks;
	uint64_t args[6] = {0};
	begin(path, &s);
	new_image(&s, 400, PROCESS_START, 0);
	trace_stream_init(&st, &s, 400);
	trace_stream_enter(&st, 0x4000, T(10), 0);
	trace_stream_exit(&st, 0x4000, T(100));
	trace_stream_destroy(&st);
	kernel_stream_init(&ks, &s, 400, 400, 0);
	kernel_stream_syscall_enter(&ks, 7, T(20), args);
	kernel_stream_flush(&ks);
	kernel_stream_syscall_exit(&ks, T(30), 0);
	kernel_stream_syscall_enter(&ks, 8, T(40), args);
	kernel_stream_flush(&ks);
	kernel_stream_syscall_exit(&ks, T(50), 0);
	kernel_stream_syscall_enter(&ks, 9, T(60), args);
	kernel_stream_syscall_exit(&ks, T(70), 0);
	kernel_stream_fini(&ks);
	trace_session_close(&s);
	uint64_t offsets[4];
	CHECK(kernel_chunks(path, offsets, 4) == 3, "three kernel chunks written");
	if (corrupt) {
		uint8_t junk[8];
		memset(junk, 0xff, sizeof(junk)); /* a varint that never ends */
		patch(path, offsets[1] + sizeof(struct trace_chunk), junk, sizeof(junk));
	} else {
		uint16_t skip = CHUNK_SKIP;
		patch(path, offsets[1] + offsetof(struct trace_chunk, kind), &skip, sizeof(skip));
	}

	struct trace_reader *r = open_trace(path);
	if (!r)
		return;
	CHECK(r->nproblems == 1 &&
		  strstr(r->problems[0].message,
			 corrupt ? "corrupt kernel chunk" : "1 kernel chunks missing"),
	      "one problem: %s", r->nproblems ? r->problems[0].message : "none");
	CHECK(corrupt ? r->losses.corrupt == 1 : r->losses.missing_windows == 1,
	      "counted in the losses");
	CHECK(r->nthreads == 1 && r->threads[0].nkernel_windows == 2 && r->kernel_events == 4,
	      "two kernel chunks kept, 4 events");
	const struct want want[] = {
	    {TRACE_ENTER, 0x4000, 0}, {TRACE_ENTER, SYS(7), 1}, {TRACE_UNWIND, 0, 1},
	    {TRACE_ENTER, SYS(9), 1}, {TRACE_EXIT, SYS(9), 1},	{TRACE_EXIT, 0, 0},
	};
	expect_events(r, &r->threads[0], want, 6, corrupt ? "corrupt chunk" : "missing chunk");
	struct trace_cursor c;
	struct trace_event ev;
	int unwind_ok = 0;
	trace_cursor_init(&c, r, &r->threads[0]);
	while (trace_cursor_next(&c, &ev))
		if (ev.type == TRACE_UNWIND)
			unwind_ok = ev.stay == 1 && ev.lost;
	trace_cursor_fini(&c);
	CHECK(unwind_ok, "the open system call ends, lost; main stays");
	trace_reader_close(r);
}

int main(void)
{
	char path[4200];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/calltrace-test-kmerge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/k.trace", dir);
	test_merge_order(path);
	test_exec_and_strangers(path, 1);
	test_exec_and_strangers(path, 0);
	test_damaged(path, 1);
	test_damaged(path, 0);
	unlink(path);
	rmdir(dir);
	return CHECK_SUMMARY("test_kernel_merge");
}
