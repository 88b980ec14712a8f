/*
 * test_kernel_stream.c - the writer of CHUNK_KERNEL chunks: what it writes
 * is, byte for byte, the chunks trace_format.h describes (decoded here on
 * their own, apart from the reader), split where the buffer fills, with
 * times on the session's clock.
 */
#include "../../src/format/kernel_stream.h"
#include "../../src/format/trace_clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include "check.h"

static char dir[4096];

/* One decoded event of a kernel chunk. */
struct raw_event {
	int enter;	  /* 1: ENTER, 0: EXIT */
	uint64_t address; /* ENTER: the tagged address */
	uint64_t unit;	  /* time unit */
	uint32_t values_len;
	uint8_t values[80];
	uint32_t chunk; /* which chunk of the file (0, 1...) */
};

#define MAX_RAW 4096
static struct raw_event raw[MAX_RAW];
static size_t nraw;
static struct trace_chunk chunks[64];
static size_t nchunks;

static uint64_t varint(const uint8_t **p)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
}

/* Decodes the payload of one kernel chunk into raw[]. */
static void decode_payload(const uint8_t *p, const uint8_t *end, const struct trace_chunk *c)
{
	uint64_t dict[1024], unit = c->base_tick;
	size_t ndict = 0;
	while (p < end && nraw < MAX_RAW) {
		uint8_t b = *p++;
		struct raw_event *e = &raw[nraw];
		memset(e, 0, sizeof(*e));
		e->chunk = (uint32_t)nchunks;
		if ((b & 3) == 0 && b >> 2 == EV_DEFINE) {
			dict[ndict++] = varint(&p);
			continue;
		}
		if ((b & 3) == 0 && (b >> 2 == EV_ARGS || b >> 2 == EV_RETVAL)) {
			uint64_t len = varint(&p);
			int after = nraw > 0 && raw[nraw - 1].chunk == nchunks;
			CHECK(after && len <= sizeof(e->values),
			      "values after an event of the chunk");
			if (after && len <= sizeof(e->values)) {
				memcpy(raw[nraw - 1].values, p, len);
				raw[nraw - 1].values_len = (uint32_t)len;
			}
			p += len;
			continue;
		}
		if ((b & 3) == 1 || (b & 3) == 3) {
			uint64_t fid = b >> 2;
			if ((b & 3) == 3)
				fid |= varint(&p) << 6;
			unit += varint(&p);
			CHECK(fid < ndict, "fid %llu defined", (unsigned long long)fid);
			e->enter = 1;
			e->address = fid < ndict ? dict[fid] : 0;
		} else if ((b & 3) == 2) {
			uint64_t delta = b >> 2;
			if (delta == EV_SHORT_DELTA_MAX)
				delta += varint(&p);
			unit += delta;
		} else {
			CHECK(0, "unexpected event byte %#x", b);
			return;
		}
		e->unit = unit;
		nraw++;
	}
}

/* Reads every CHUNK_KERNEL chunk of the trace at `path`. */
static void decode_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	nraw = nchunks = 0;
	if (fd < 0 || fstat(fd, &st) < 0) {
		CHECK(0, "open %s", path);
		return;
	}
	uint8_t *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	/* The chunks end where the claims do: a session still open has space
	 * reserved past them. */
	struct trace_file_header h;
	memcpy(&h, data, sizeof(h));
	uint64_t end = h.next_offset < (uint64_t)st.st_size ? h.next_offset : (uint64_t)st.st_size;
	for (uint64_t off = TRACE_HEADER_SIZE; off + sizeof(struct trace_chunk) <= end;) {
		struct trace_chunk c;
		memcpy(&c, data + off, sizeof(c));
		if (c.magic != TRACE_CHUNK_MAGIC || c.length < sizeof(c)) {
			CHECK(0, "chunk at %llu", (unsigned long long)off);
			break;
		}
		if (c.kind == CHUNK_KERNEL && nchunks < 64) {
			const uint8_t *p = data + off + sizeof(c);
			decode_payload(p, p + c.used, &c);
			chunks[nchunks++] = c;
		}
		off += c.length;
	}
	munmap(data, (size_t)st.st_size);
}

static uint64_t bytes8(const uint8_t *v)
{
	uint64_t x = 0;
	for (int i = 7; i >= 0; i--)
		x = x << 8 | v[i];
	return x;
}

/* A read(2) that blocks: the system call, an off-CPU interval inside it,
 * its return; then a preemption.  Every event, value and time comes back. */
static void test_events(const char *path)
{
	struct trace_session s;
	struct kernel_stream ks;
	trace_session_create_replacing(&s, path, "x", 1, 1 << 20);
	trace_session_new_image(&s, 40);
	uint32_t shift = s.tick_shift;
	CHECK(kernel_stream_init(&ks, &s, 40, 41, 0) == 0, "init");
	uint64_t args[6] = {3, 0x7ffd0000, 4096, 0, 0, UINT64_MAX};
	uint64_t t = (uint64_t)1000000 << shift;
	CHECK(kernel_stream_syscall_enter(&ks, 0, t, args) == 0, "read enters");
	kernel_stream_offcpu_enter(&ks, OFFCPU_BLOCKED, t + (10u << shift));
	kernel_stream_offcpu_exit(&ks, t + (5000u << shift));
	CHECK(kernel_stream_syscall_exit(&ks, t + (5010u << shift), -11) == 0, "read exits");
	kernel_stream_offcpu_enter(&ks, OFFCPU_PREEMPTED, t + (7000u << shift));
	kernel_stream_offcpu_exit(&ks, t + (7000u << shift)); /* the same time */
	CHECK(kernel_stream_exit(&ks, t + (8000u << shift), NULL, 0) < 0 && ks.dropped_exits == 1,
	      "an exit with nothing open is dropped");
	CHECK(ks.chunks == 0 && ks.events == 6, "buffered, not written yet");
	kernel_stream_fini(&ks);
	CHECK(ks.chunks == 1, "fini flushes");
	trace_session_close(&s);

	decode_file(path);
	CHECK(nchunks == 1 && nraw == 6, "one chunk, 6 events: %zu, %zu", nchunks, nraw);
	if (nchunks != 1 || nraw != 6)
		return;
	const struct trace_chunk *c = &chunks[0];
	CHECK(c->image == 0 && c->pid == 40 && c->tid == 41 && c->seq == 0, "chunk header");
	CHECK(c->base_tick == 1000000, "base_tick in time units: %llu",
	      (unsigned long long)c->base_tick);
	CHECK(c->clock_ns != 0 && c->clock_tick != 0, "clock anchors");
	static const uint64_t units[6] = {0, 10, 5000, 5010, 7000, 7000};
	static const int enters[6] = {1, 1, 0, 0, 1, 0};
	const uint64_t addresses[6] = {TRACE_CALL_ADDRESS(CALL_SYSCALL, 0),
				       TRACE_CALL_ADDRESS(CALL_OFFCPU, OFFCPU_BLOCKED),
				       0,
				       0,
				       TRACE_CALL_ADDRESS(CALL_OFFCPU, OFFCPU_PREEMPTED),
				       0};
	for (int i = 0; i < 6; i++) {
		CHECK(raw[i].enter == enters[i] && raw[i].unit == 1000000 + units[i] &&
			  raw[i].address == addresses[i],
		      "event %d: enter %d unit %llu address %#llx", i, raw[i].enter,
		      (unsigned long long)raw[i].unit, (unsigned long long)raw[i].address);
	}
	CHECK(TRACE_CALL_KIND(raw[0].address) == CALL_SYSCALL &&
		  TRACE_CALL_WHERE(raw[0].address) == 0,
	      "kind and number of read");
	CHECK(raw[0].values_len == KERNEL_SYSCALL_ARGS_BYTES && raw[0].values[0] == VALUE_BYTES &&
		  raw[0].values[1] == 8 && bytes8(raw[0].values + 2) == 3 &&
		  bytes8(raw[0].values + 2 + 10 * 5) == UINT64_MAX,
	      "six raw arguments");
	CHECK(raw[3].values_len == KERNEL_SYSCALL_RET_BYTES &&
		  (int64_t)bytes8(raw[3].values + 2) == -11,
	      "the raw return -EAGAIN");
	CHECK(raw[1].values_len == 0 && raw[2].values_len == 0, "off-CPU intervals have no values");
}

/* A small buffer fills: chunks follow each other numbered 0, 1, 2..., each
 * with a dictionary of its own; an exit's value stays with it; a call open
 * across chunks ends in the next.  An explicit flush ends a chunk early. */
static void test_chunks(const char *path)
{
	struct trace_session s;
	struct kernel_stream ks;
	trace_session_create_replacing(&s, path, "x", 1, 1 << 20);
	trace_session_new_image(&s, 50);
	kernel_stream_init(&ks, &s, 50, 50, KERNEL_STREAM_MIN_SIZE);
	uint64_t args[6] = {1, 2, 3, 4, 5, 6}, tick = 5000;
	const int calls = 400;
	for (int i = 0; i < calls; i++) {
		kernel_stream_syscall_enter(&ks, (uint32_t)(i % 7), tick += 100, args);
		kernel_stream_syscall_exit(&ks, tick += 100, i);
	}
	kernel_stream_syscall_enter(&ks, 60, tick += 100, args); /* exit(2): open */
	kernel_stream_flush(&ks);
	CHECK(kernel_stream_offcpu_enter(&ks, OFFCPU_PREEMPTED, tick += 100) == 0 &&
		  kernel_stream_offcpu_exit(&ks, tick += 100) == 0,
	      "a call inside the open one, in a new chunk");
	uint64_t chunks_written = ks.chunks;
	kernel_stream_fini(&ks);
	trace_session_close(&s);

	decode_file(path);
	CHECK(nchunks > 4 && nchunks == chunks_written + 1, "%zu chunks", nchunks);
	CHECK(nraw == 2 * calls + 3, "%zu events", nraw);
	int ordered = 1, values = 1;
	for (size_t i = 0; i < nchunks; i++)
		ordered &= chunks[i].seq == i && chunks[i].tid == 50 &&
			   chunks[i].used <= KERNEL_STREAM_MIN_SIZE;
	for (size_t i = 0; i + 1 < nraw; i++)
		ordered &= raw[i + 1].unit > raw[i].unit;
	for (int i = 0; i < calls && (size_t)2 * i + 1 < nraw; i++)
		values &= raw[2 * i].address == TRACE_CALL_ADDRESS(CALL_SYSCALL, i % 7) &&
			  raw[2 * i + 1].values_len == KERNEL_SYSCALL_RET_BYTES &&
			  bytes8(raw[2 * i + 1].values + 2) == (uint64_t)i;
	CHECK(ordered, "chunks numbered in order, times increasing");
	CHECK(values, "every call's number and return value");
	CHECK(nraw == 2 * calls + 3 && raw[nraw - 2].chunk == nchunks - 1 &&
		  raw[nraw - 3].chunk == nchunks - 2,
	      "the flush ended a chunk");
}

/* On CLOCK_MONOTONIC a tick is a ns: each chunk's anchor (and the
 * session's start) is one clock read, never two that drift apart. */
static void test_monotonic_anchor(const char *path)
{
	struct trace_session s;
	struct kernel_stream ks;
	setenv("CALLTRACE_CLOCK", "monotonic", 1);
	trace_session_create_replacing(&s, path, "x", 1, 1 << 20);
	unsetenv("CALLTRACE_CLOCK");
	CHECK(s.header->clock == TRACE_CLOCK_MONOTONIC, "the session is on CLOCK_MONOTONIC");
	CHECK(s.header->start_tick == s.header->start_mono_ns, "start: tick %llu, ns %llu",
	      (unsigned long long)s.header->start_tick,
	      (unsigned long long)s.header->start_mono_ns);
	trace_session_new_image(&s, 50);
	kernel_stream_init(&ks, &s, 50, 50, KERNEL_STREAM_MIN_SIZE);
	uint64_t args[6] = {0}, tick = trace_clock_tick();
	for (int i = 0; i < 3; i++) {
		kernel_stream_syscall_enter(&ks, 39, tick += 100, args);
		kernel_stream_syscall_exit(&ks, tick += 100, 1);
		kernel_stream_flush(&ks);
	}
	kernel_stream_fini(&ks);
	trace_session_close(&s);
	trace_clock_init(); /* the machine's clock again */

	decode_file(path);
	int same = nchunks >= 3;
	for (size_t i = 0; i < nchunks; i++)
		same &= chunks[i].clock_tick == chunks[i].clock_ns;
	CHECK(same, "%zu chunks, each anchored by one read", nchunks);
}

/* A chunk that cannot be written (the file cannot grow) loses its events,
 * counted; the stream goes on with the next chunk, numbered as if nothing
 * had been written. */
static void test_lost(const char *path)
{
	struct trace_session s;
	struct kernel_stream ks;
	trace_session_create_replacing(&s, path, "x", 1, 1 << 20);
	kernel_stream_init(&ks, &s, 60, 60, 0);
	kernel_stream_offcpu_enter(&ks, OFFCPU_PREEMPTED, 100);
	kernel_stream_offcpu_exit(&ks, 200);
	s.broken = 1; /* as after a full disk */
	CHECK(kernel_stream_flush(&ks) < 0 && ks.lost_events == 2 && ks.events == 0 &&
		  ks.chunks == 0,
	      "the events of a chunk not written are counted lost");
	s.broken = 0;
	kernel_stream_offcpu_enter(&ks, OFFCPU_BLOCKED, 300);
	kernel_stream_offcpu_exit(&ks, 400);
	kernel_stream_fini(&ks);
	trace_session_close(&s);
	decode_file(path);
	CHECK(nchunks == 1 && chunks[0].seq == 0 && nraw == 2 &&
		  raw[0].address == TRACE_CALL_ADDRESS(CALL_OFFCPU, OFFCPU_BLOCKED),
	      "the next chunk is written, numbered 0");
}

int main(void)
{
	char path[4200];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/calltrace-test-kernel-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/k.trace", dir);
	test_events(path);
	test_chunks(path);
	test_lost(path);
	test_monotonic_anchor(path);
	unlink(path);
	rmdir(dir);
	return CHECK_SUMMARY("test_kernel_stream");
}
