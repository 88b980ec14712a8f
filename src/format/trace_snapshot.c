/*
 * trace_snapshot.c - copy a session's trace, as it is, into a new trace
 * file while the recording goes on (trace_writer.h): for a ring, the most
 * recent calls at the moment asked.
 *
 * Safe in a signal handler: no allocation, no lock, system calls only.  The
 * copy is made under NAME.snapshot-N.trace.part and given its name whole.  A
 * ring slot is copied only if its generation (trace_format.h) was even and
 * stayed the same meanwhile; otherwise it is copied again, and a slot that
 * never stays still holds an empty chunk, its window counted overwritten.
 * A window being written while it is copied (another thread's) is read
 * twice, and kept as far as both reads agree, zeros after: a writer only
 * appends, so that is a whole prefix of its events and maybe the start of
 * one more, as a killed writer leaves it (the reader stops there).
 */
#include "trace_writer.h"
#include "trace_writer_internal.h"
#include "../utils/big_table.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define COPY_BLOCK (64u << 10)
#define SLOT_TRIES 1000 /* copies of a slot being replaced, at most */

static char copy_buffer[COPY_BLOCK] BIG_TABLE, check_buffer[COPY_BLOCK] BIG_TABLE;
static int copy_busy;

/* Copies [from, to) of `in` to the same place in `out`; 0 or -1. */
static int copy_range(int in, int out, uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t n = to - from < COPY_BLOCK ? (size_t)(to - from) : COPY_BLOCK;
		ssize_t r = pread(in, copy_buffer, n, (off_t)from);
		if (r <= 0)
			return r == 0 ? 0 : -1; /* the file ends: nothing more */
		if (pwrite(out, copy_buffer, (size_t)r, (off_t)from) != r)
			return -1;
		from += (uint64_t)r;
	}
	return 0;
}

/* A window being written, copied to `out` at [from, to): read again, and
 * zeros in the copy from the first byte where the two reads differ. */
static int trim_torn(int in, int out, uint64_t from, uint64_t to)
{
	uint64_t at = from;
	for (; at < to; at += COPY_BLOCK) {
		size_t n = to - at < COPY_BLOCK ? (size_t)(to - at) : COPY_BLOCK, k = 0;
		if (pread(out, copy_buffer, n, (off_t)at) != (ssize_t)n ||
		    pread(in, check_buffer, n, (off_t)at) != (ssize_t)n)
			return -1;
		while (k < n && copy_buffer[k] == check_buffer[k])
			k++;
		if (k < n) {
			at += k;
			break;
		}
	}
	memset(copy_buffer, 0, sizeof(copy_buffer));
	while (at < to) {
		size_t n = to - at < COPY_BLOCK ? (size_t)(to - at) : COPY_BLOCK;
		if (pwrite(out, copy_buffer, n, (off_t)at) != (ssize_t)n)
			return -1;
		at += n;
	}
	return 0;
}

/* Slot `i` into the copy, as it was at one moment: 0; 1 when it was being
 * replaced all the while (then it may hold anything); -1 on an error. */
static int try_copy_slot(struct trace_session *s, int out, uint32_t i)
{
	const struct trace_ring_slot *sl = &s->ring->slot[i];
	uint64_t off = trace_ring_slot_offset(s, i);
	uint32_t size = s->header->ring_slot_size;
	uint32_t gen = __atomic_load_n(&sl->gen, __ATOMIC_ACQUIRE);
	int working = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) == RING_WORKING;
	if (gen & 1)
		return 1;
	if (copy_range(s->fd, out, off, off + size) < 0 ||
	    (working && trim_torn(s->fd, out, off + sizeof(struct trace_chunk), off + size) < 0))
		return -1;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&sl->gen, __ATOMIC_RELAXED) != gen;
}

/* Slot `i` into the copy.  A slot being replaced is tried again (a window
 * is copied in no time) so that no thread's run of windows has a hole; one
 * replaced all the while is an empty chunk in the copy, counted into
 * `left_out` as overwritten (windows, calls). */
static int copy_slot(struct trace_session *s, int out, uint32_t i, uint64_t left_out[2])
{
	for (int tries = 0; tries < SLOT_TRIES; tries++) {
		int rc = try_copy_slot(s, out, i);
		if (rc <= 0)
			return rc;
		sched_yield();
	}
	left_out[0]++;
	left_out[1] += __atomic_load_n(&s->ring->slot[i].calls, __ATOMIC_RELAXED);
	struct trace_chunk c;
	trace_chunk_fill(&c, CHUNK_SKIP, s->header->ring_slot_size, s, 0);
	return pwrite(out, &c, sizeof(c), (off_t)trace_ring_slot_offset(s, i)) == (ssize_t)sizeof(c)
		   ? 0
		   : -1;
}

/* Into `out`: NAME.snapshot-N.trace for a trace NAME.trace (or NAME), and
 * `suffix` after it; 0, or -1 when it does not fit. */
static int snapshot_name(const struct trace_session *s, uint32_t n, const char *suffix, char *out,
			 size_t len)
{
	size_t base = strlen(s->path), tail = strlen(suffix);
	if (base > 6 && strcmp(s->path + base - 6, ".trace") == 0)
		base -= 6;
	char digits[12];
	int d = 0;
	do
		digits[d++] = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	static const char mid[] = ".snapshot-", end[] = ".trace";
	if (base + sizeof(mid) + (size_t)d + sizeof(end) + tail > len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	char *p = out;
	memcpy(p, s->path, base);
	p += base;
	memcpy(p, mid, sizeof(mid) - 1);
	p += sizeof(mid) - 1;
	while (d > 0)
		*p++ = digits[--d];
	memcpy(p, end, sizeof(end) - 1);
	p += sizeof(end) - 1;
	memcpy(p, suffix, tail + 1);
	return 0;
}

/* The copy is made as NAME.snapshot-N.trace.part (created anew, never
 * through a link, never over a file), into `part`; the descriptor, or -1. */
static int create_copy(struct trace_session *s, char *part, size_t len)
{
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t n = __atomic_add_fetch(&s->header->ring_snapshots, 1, __ATOMIC_RELAXED);
		if (snapshot_name(s, n, "", part, len) < 0)
			return -1;
		if (access(part, F_OK) == 0)
			continue; /* the name is taken */
		if (snapshot_name(s, n, ".part", part, len) < 0)
			return -1;
		int fd = open(part, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

/* The whole copy `part` (NAME.snapshot-N.trace.part) takes its name (into
 * `out`): a snapshot file is whole once it has it.  A name taken meanwhile
 * is left alone; the copy then keeps the name it has. */
static int publish_copy(const char *part, char *out, size_t len)
{
	size_t n = strlen(part) - 5; /* without ".part" */
	if (n + 6 > len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(out, part, n);
	out[n] = '\0';
	if (link(part, out) == 0)
		return unlink(part);
	memcpy(out, part, n + 6);
	return 0;
}

static int copy_trace(struct trace_session *s, int out)
{
	struct stat st;
	uint64_t end = __atomic_load_n(&s->header->next_offset, __ATOMIC_ACQUIRE);
	if (fstat(s->fd, &st) < 0)
		return -1;
	if (end > (uint64_t)st.st_size)
		end = (uint64_t)st.st_size;
	uint64_t ring_from = end, ring_to = end;
	if (s->ring) {
		ring_from = s->ring->first_slot;
		ring_to = ring_from + (uint64_t)s->ring->slots * s->header->ring_slot_size;
	}
	if (copy_range(s->fd, out, 0, ring_from) < 0)
		return -1;
	uint64_t left_out[2] = {0, 0};
	for (uint32_t i = 0; s->ring && i < s->ring->slots; i++)
		if (copy_slot(s, out, i, left_out) < 0)
			return -1;
	if (copy_range(s->fd, out, ring_to, end) < 0)
		return -1;
	/* The copy holds what was claimed when it began, no more; the windows
	 * it left out count as overwritten. */
	struct trace_file_header h;
	if (pread(out, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	h.next_offset = end;
	h.ring_overwritten_windows += left_out[0];
	h.ring_overwritten_calls += left_out[1];
	return pwrite(out, &h, sizeof(h), 0) == (ssize_t)sizeof(h) ? 0 : -1;
}

int trace_session_snapshot(struct trace_session *s, char *out, size_t len)
{
	if (!s->header) {
		errno = EBADF;
		return -1;
	}
	if (__atomic_exchange_n(&copy_busy, 1, __ATOMIC_ACQUIRE)) {
		errno = EBUSY;
		return -1;
	}
	char part[4096 + 32];
	int fd = create_copy(s, part, sizeof(part));
	int rc = fd < 0 ? -1 : copy_trace(s, fd);
	if (fd >= 0) {
		close(fd);
		if (rc == 0)
			rc = publish_copy(part, out, len);
		if (rc < 0) {
			int saved = errno;
			unlink(part);
			errno = saved;
		}
	}
	int saved = errno;
	__atomic_store_n(&copy_busy, 0, __ATOMIC_RELEASE);
	errno = saved;
	return rc;
}
