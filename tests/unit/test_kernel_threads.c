/*
 * test_kernel_threads.c - the kernel collector's decoding and bookkeeping,
 * on perf records made by hand: system calls with their raw arguments and
 * return, a blocked interval inside one, a pre-empted one outside, an exit
 * whose enter came before recording (dropped), an exit lost (the call ends
 * where the next begins), an exec (execve returns 0 in the old image, the
 * loader's calls start the new one's chunks), exit_group ended by the thread's
 * exit, a second thread apart, lost events counted.  What the reader then
 * gives each thread is checked event by event, times included.  The
 * tracer's own work between its marks (nested; one left open, closed by a
 * loss) is left out.  And the conversion of perf times to the TSC.
 */
#include "../../src/kernel/kernel_events.h"
#include "../../src/kernel/kernel_threads.h"
#include "../../src/kernel/perf_events.h"
#include "../../src/format/trace_reader.h"
#include "../../src/format/own_work.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define ENTER_ID 300
#define EXIT_ID 301
#define PID 100

static struct perf_session perf = {.sys_enter_id = ENTER_ID, .sys_exit_id = EXIT_ID};
static struct kernel_clock kclock = {.tsc = 0, .perf = &perf};
static struct kernel_threads threads;
static uint64_t t0; /* the session's start, in ticks (ns) */
static uint8_t rec[256];

static void apply(void)
{
	struct kernel_event ev;
	if (perf_decode(&kclock, &perf, rec, &ev))
		kernel_threads_apply(&threads, &ev);
}

static void *begin(uint32_t type, uint16_t misc, uint16_t size)
{
	memset(rec, 0, sizeof(rec));
	struct perf_event_header *h = (void *)rec;
	h->type = type;
	h->misc = misc;
	h->size = size;
	return h + 1;
}

/* The sample_id trailer every non-sample record ends with. */
static void trailer(uint32_t tid, uint64_t at)
{
	struct perf_event_header *h = (void *)rec;
	uint32_t ids[2] = {PID, tid};
	uint64_t time = t0 + at;
	memcpy(rec + h->size - 16, ids, 8);
	memcpy(rec + h->size - 8, &time, 8);
}

static void sample(uint32_t tid, uint64_t at, uint16_t id, int64_t nr, const uint64_t *vals,
		   int nvals)
{
	uint32_t raw_size = 16 + 8 * (uint32_t)nvals + 4; /* as the kernel pads it */
	uint16_t size = (uint16_t)(sizeof(struct perf_event_header) + 16 + 4 + raw_size);
	uint8_t *p = begin(PERF_RECORD_SAMPLE, 0, size);
	uint32_t ids[2] = {PID, tid};
	uint64_t time = t0 + at;
	memcpy(p, ids, 8);
	memcpy(p + 8, &time, 8);
	memcpy(p + 16, &raw_size, 4);
	memcpy(p + 20, &id, 2);
	memcpy(p + 28, &nr, 8);
	memcpy(p + 36, vals, 8 * (size_t)nvals);
	apply();
}

static void sys_enter(uint32_t tid, uint64_t at, int64_t nr, uint64_t arg0)
{
	uint64_t args[6] = {arg0, 0x1000, 7, 0, 0, (uint64_t)-1};
	sample(tid, at, ENTER_ID, nr, args, 6);
}

static void sys_exit(uint32_t tid, uint64_t at, int64_t nr, int64_t ret)
{
	uint64_t v = (uint64_t)ret;
	sample(tid, at, EXIT_ID, nr, &v, 1);
}

static void context_switch(uint32_t tid, uint64_t at, int out, int preempted)
{
	uint16_t misc = out ? PERF_RECORD_MISC_SWITCH_OUT : 0;
	if (preempted)
		misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	begin(PERF_RECORD_SWITCH, misc, sizeof(struct perf_event_header) + 16);
	trailer(tid, at);
	apply();
}

static void exec_of(uint32_t tid, uint64_t at)
{
	uint32_t *p = begin(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC,
			    sizeof(struct perf_event_header) + 8 + 8 + 16);
	p[0] = PID;
	p[1] = tid;
	memcpy(p + 2, "prog", 5);
	trailer(tid, at);
	apply();
}

static void exit_of(uint32_t tid, uint64_t at)
{
	uint32_t *p = begin(PERF_RECORD_EXIT, 0, sizeof(struct perf_event_header) + 24 + 16);
	uint64_t time = t0 + at;
	p[0] = PID;
	p[1] = 1;
	p[2] = tid;
	p[3] = 1;
	memcpy(p + 4, &time, 8);
	trailer(tid, at);
	apply();
}

static void lost(uint64_t n)
{
	uint64_t *p = begin(PERF_RECORD_LOST, 0, sizeof(struct perf_event_header) + 16 + 16);
	p[0] = 1;
	p[1] = n;
	trailer(PID, 0);
	apply();
}

static void mark(uint32_t tid, uint64_t at, int64_t nr)
{
	sys_enter(tid, at, nr, 0);
	sys_exit(tid, at + 10, nr, -38); /* ENOSYS */
}

/* A thread's getppid()s around the tracer's own work: marks nested, a
 * blocked interval in it, an end mark lost (events lost: work closed). */
static void own_work_thread(uint32_t tid)
{
	sys_enter(tid, 6000, 110, 0);
	sys_exit(tid, 6100, 110, 42);
	mark(tid, 6200, TRACE_OWN_BEGIN_NR);
	mark(tid, 6250, TRACE_OWN_BEGIN_NR);
	sys_enter(tid, 6300, 285, 1000); /* fallocate */
	context_switch(tid, 6350, 1, 0);
	context_switch(tid, 6400, 0, 0);
	sys_exit(tid, 6450, 285, 0);
	mark(tid, 6500, TRACE_OWN_END_NR);
	sys_enter(tid, 6550, 18, 1000); /* pwrite64, in the outer work still */
	sys_exit(tid, 6560, 18, 64);
	mark(tid, 6600, TRACE_OWN_END_NR);
	sys_enter(tid, 6800, 110, 0);
	sys_exit(tid, 6900, 110, 42);
	mark(tid, 7000, TRACE_OWN_BEGIN_NR);
	sys_enter(tid, 7100, 39, 0); /* getpid; then its exit and the end mark lost */
	lost(1);
	sys_enter(tid, 7300, 110, 0);
	sys_exit(tid, 7400, 110, 42);
	exit_of(tid, 7500);
}

/* What the reader gives a thread, one line per event:
 * "+NR@AT(ARG0)" a system call's enter, "-@AT=RET" or "-@AT" an exit,
 * "+blocked@AT" / "+preempted@AT" an off-CPU interval.  AT is in ns from
 * the first event at 1000, to the nearest 100.  Each chunk anchors its
 * ticks to ns with two clock reads, apart by a few ns or, on a busy
 * machine, more: the times of the new image's chunk count from its first
 * event (`image_start`, a system call's enter; 0: none), at `at`. */
static void thread_events(struct trace_reader *r, uint32_t tid, uint64_t image_start,
			  uint64_t at_start, char *out, size_t len)
{
	size_t n = 0;
	uint64_t first = 0;
	out[0] = 0;
	for (size_t i = 0; i < r->nthreads; i++) {
		if (r->threads[i].tid != tid)
			continue;
		struct trace_cursor c;
		struct trace_event ev;
		trace_cursor_init(&c, r, &r->threads[i]);
		while (trace_cursor_next(&c, &ev) && n + 64 < len) {
			if (!first)
				first = ev.time_ns;
			if (image_start && ev.type == TRACE_ENTER && ev.call_kind == CALL_SYSCALL &&
			    TRACE_CALL_WHERE(ev.address) == image_start)
				first = ev.time_ns - (at_start - 1000);
			uint64_t at = (ev.time_ns - first + 1000 + 50) / 100 * 100;
			int64_t v = 0;
			if (ev.values && ev.values_len >= 10)
				memcpy(&v, ev.values + 2, 8);
			if (ev.type == TRACE_ENTER && ev.call_kind == CALL_SYSCALL)
				n += (size_t)snprintf(
				    out + n, len - n, "+%llu@%llu(%lld) ",
				    (unsigned long long)TRACE_CALL_WHERE(ev.address),
				    (unsigned long long)at, (long long)v);
			else if (ev.type == TRACE_ENTER)
				n += (size_t)snprintf(out + n, len - n, "+%s@%llu ",
						      TRACE_CALL_WHERE(ev.address) == OFFCPU_BLOCKED
							  ? "blocked"
							  : "preempted",
						      (unsigned long long)at);
			else if (ev.type == TRACE_EXIT && ev.values)
				n += (size_t)snprintf(out + n, len - n, "-@%llu=%lld ",
						      (unsigned long long)at, (long long)v);
			else if (ev.type == TRACE_EXIT)
				n += (size_t)snprintf(out + n, len - n, "-@%llu ",
						      (unsigned long long)at);
			else
				n += (size_t)snprintf(out + n, len - n, "?%d ", (int)ev.type);
		}
		trace_cursor_fini(&c);
	}
}

/* perf time -> TSC, as the kernel's page gives the conversion (a 2.5 GHz
 * TSC: 0.4 ns a cycle): back to the cycle the time was taken at, or to
 * one of the 3 before it (the time dropped less than a ns, 2.5 cycles, and
 * the conversion back less than a cycle), never after: a few cycles
 * early at most, far less than entering a system call takes, so it stays
 * after the user-space event that made it. */
static void test_tsc_conversion(void)
{
	struct perf_session ps = {
	    .time_zero = (uint64_t)-123456789, .time_mult = 858993459, .time_shift = 31};
	uint64_t prev = 0;
	for (uint64_t cyc = 1000; cyc < (1ull << 52); cyc = cyc * 3 + 7) {
		uint64_t quot = cyc >> ps.time_shift, rem = cyc & ((1ull << ps.time_shift) - 1);
		uint64_t ns =
		    ps.time_zero + quot * ps.time_mult + ((rem * ps.time_mult) >> ps.time_shift);
		uint64_t back = perf_time_to_tsc(&ps, ns);
		CHECK(back <= cyc && back + 4 > cyc && back >= prev,
		      "cycle %llu: perf time %llu converts back to %llu", (unsigned long long)cyc,
		      (unsigned long long)ns, (unsigned long long)back);
		prev = back;
	}
}

int main(void)
{
	test_tsc_conversion();
	char dir[] = "/tmp/test_kernel_threads.XXXXXX", path[4200];
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/k.trace", dir);
	setenv("CALLTRACE_CLOCK", "monotonic", 1);
	struct trace_session s;
	if (trace_session_create_replacing(&s, path, "prog", 5, 0) < 0) {
		perror(path);
		return 1;
	}
	t0 = s.header->start_tick;
	kernel_threads_init(&threads, &s);

	sys_enter(PID, 1000, 0, 3);	  /* read(3, ...) */
	context_switch(PID, 1100, 1, 0);  /* asleep in it */
	sys_enter(PID + 1, 1200, 110, 0); /* another thread's getppid */
	sys_exit(PID + 1, 1300, 110, 42);
	context_switch(PID, 1500, 0, 0);
	sys_exit(PID, 1600, 0, 5);	 /* = 5 */
	sys_exit(PID, 2000, 1, 1);	 /* its enter came before: dropped */
	context_switch(PID, 2100, 1, 1); /* pre-empted */
	context_switch(PID, 2200, 0, 0);
	sys_enter(PID, 3000, 1, 4);	  /* write(4, ...): its exit is lost */
	sys_enter(PID, 3500, 3, 9);	  /* close(9) */
	sys_exit(PID, 3600, 3, -9);	  /* = -EBADF */
	sys_enter(PID, 4000, 59, 0x5000); /* execve */
	exec_of(PID, 4500);		  /* ... succeeded */
	sys_exit(PID, 4550, 59, 0);	  /* in the new image: nothing open */
	sys_enter(PID, 4600, 12, 0);	  /* the loader's brk(NULL) */
	sys_exit(PID, 4700, 12, 0x8000);
	sys_enter(PID, 5000, 231, 0); /* exit_group(0) */
	exit_of(PID, 5100);
	exit_of(PID + 1, 5200);
	lost(6);
	own_work_thread(PID + 2);

	CHECK(threads.syscalls == 10, "%llu system calls counted, want 10",
	      (unsigned long long)threads.syscalls);
	CHECK(threads.offcpu == 2, "%llu off-CPU intervals counted, want 2",
	      (unsigned long long)threads.offcpu);
	CHECK(threads.lost == 7, "%llu lost, want 7", (unsigned long long)threads.lost);
	kernel_threads_destroy(&threads);
	trace_session_close(&s);

	char err[512], got[2048];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	CHECK(r != NULL, "%s", err);
	if (r) {
		CHECK(r->losses.corrupt == 0, "the reader found %llu corrupt regions",
		      (unsigned long long)r->losses.corrupt);
		thread_events(r, PID, 12, 4600, got, sizeof(got));
		const char *want =
		    "+0@1000(3) +blocked@1100 -@1500 -@1600=5 +preempted@2100 -@2200 "
		    "+1@3000(4) -@3500 +3@3500(9) -@3600=-9 +59@4000(20480) -@4500=0 "
		    "+12@4600(0) -@4700=32768 +231@5000(0) -@5100 ";
		CHECK(strcmp(got, want) == 0, "thread %d:\n  got  %s\n  want %s", PID, got, want);
		thread_events(r, PID + 1, 0, 0, got, sizeof(got));
		want = "+110@1000(0) -@1100=42 ";
		CHECK(strcmp(got, want) == 0, "thread %d:\n  got  %s\n  want %s", PID + 1, got,
		      want);
		thread_events(r, PID + 2, 0, 0, got, sizeof(got));
		want = "+110@1000(0) -@1100=42 +110@1800(0) -@1900=42 +110@2300(0) -@2400=42 ";
		CHECK(strcmp(got, want) == 0, "thread %d:\n  got  %s\n  want %s", PID + 2, got,
		      want);
		trace_reader_close(r);
	}
	/* The exec ended the thread's chunk, and the next is numbered 0 again:
	 * the start of the new image. */
	FILE *f = fopen(path, "rb");
	struct trace_chunk c;
	int chunks = 0, zeros = 0;
	for (long off = TRACE_HEADER_SIZE;
	     f && fseek(f, off, SEEK_SET) == 0 && fread(&c, sizeof(c), 1, f) == 1 && c.length;
	     off += c.length)
		if (c.kind == CHUNK_KERNEL && c.tid == PID) {
			chunks++;
			zeros += c.seq == 0;
		}
	if (f)
		fclose(f);
	CHECK(chunks == 2 && zeros == 2, "thread %d: %d kernel chunks, %d numbered 0; want 2, 2",
	      PID, chunks, zeros);
	unlink(path);
	rmdir(dir);
	return CHECK_SUMMARY("test_kernel_threads");
}
