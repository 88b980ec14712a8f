/*
 * trace_records_write.c - metadata records (process, module, thread, crash)
 * written with pwrite into claimed space (trace_writer.h), one by one or
 * gathered (trace_records_gather: the eight records a shell's fork child
 * starts with cost one claim and one write, not eight of each).
 */
#include "trace_writer.h"
#include "trace_writer_internal.h"
#include "own_work.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

void trace_chunk_fill(struct trace_chunk *c, uint32_t kind, uint32_t length,
		      const struct trace_session *s, uint32_t tid)
{
	memset(c, 0, sizeof(*c));
	c->magic = TRACE_CHUNK_MAGIC;
	c->kind = (uint16_t)kind;
	c->header_size = sizeof(*c);
	c->length = length;
	c->image = s->image;
	c->pid = s->pid;
	c->tid = tid;
	trace_clock_anchor(&c->clock_ns, &c->clock_tick);
	c->base_tick = c->clock_tick;
}

/* ---- records gathered ------------------------------------------------------ */

#define GATHERED_MAX 8192

static struct {
	int on;
	pthread_t owner;
	size_t used;
	uint64_t bytes[GATHERED_MAX / 8];
} gathered;

void trace_records_gather(void)
{
	int off = 0;
	if (__atomic_compare_exchange_n(&gathered.on, &off, 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		gathered.owner = pthread_self();
		gathered.used = 0;
	}
}

static int gathering_here(void)
{
	return __atomic_load_n(&gathered.on, __ATOMIC_ACQUIRE) &&
	       pthread_equal(gathered.owner, pthread_self());
}

/* Writes `len` bytes into space claimed for them; 0, or -1. */
static int write_claimed(struct trace_session *s, const struct iovec *iov, int n, size_t len)
{
	uint64_t off = trace_session_claim_written(s, (uint32_t)len);
	if (off == 0)
		return -1;
	ssize_t wrote = pwritev(s->fd, iov, n, (off_t)off);
	if (wrote == (ssize_t)len)
		return 0;
	if (wrote >= 0)
		errno = ENOSPC; /* a short write: the disk is full */
	trace_session_write_failed(s);
	return -1;
}

static int write_gathered(struct trace_session *s)
{
	struct iovec all = {gathered.bytes, gathered.used};
	int rc = gathered.used ? write_claimed(s, &all, 1, gathered.used) : 0;
	gathered.used = 0;
	return rc;
}

int trace_records_flush(struct trace_session *s)
{
	if (!gathering_here())
		return 0;
	trace_own_begin();
	int rc = write_gathered(s);
	trace_own_end();
	__atomic_store_n(&gathered.on, 0, __ATOMIC_RELEASE);
	return rc;
}

/* Copies the chunk's pieces to the records gathered; 0, or -1 when they
 * do not fit even alone. */
static int gather(struct trace_session *s, const struct iovec *iov, int n, size_t len)
{
	if (gathered.used + len > GATHERED_MAX && write_gathered(s) < 0)
		return -1;
	if (len > GATHERED_MAX)
		return -1;
	uint8_t *at = (uint8_t *)gathered.bytes + gathered.used;
	for (int i = 0; i < n; i++) {
		if (iov[i].iov_len) /* an empty piece may have no base (no build-id) */
			memcpy(at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	gathered.used += len;
	return 0;
}

/* ---- one record ---------------------------------------------------------------- */

/* Writes one metadata chunk made of `n` pieces, or gathers it. */
static int write_chunk_now(struct trace_session *s, uint32_t kind, uint32_t tid,
			   const struct iovec *parts, int n)
{
	struct iovec iov[8];
	struct trace_chunk c;
	size_t payload = 0;
	static const char zeros[8];
	for (int i = 0; i < n; i++)
		payload += parts[i].iov_len;
	uint32_t length = (uint32_t)((sizeof(c) + payload + 7) & ~(size_t)7);
	trace_chunk_fill(&c, kind, length, s, tid);
	c.used = (uint32_t)payload;
	iov[0].iov_base = &c;
	iov[0].iov_len = sizeof(c);
	memcpy(iov + 1, parts, (size_t)n * sizeof(*parts));
	iov[n + 1].iov_base = (void *)zeros;
	iov[n + 1].iov_len = length - sizeof(c) - payload;
	if (gathering_here() && gather(s, iov, n + 2, length) == 0)
		return 0;
	return write_claimed(s, iov, n + 2, length);
}

/* The same, marked as the tracer's own work (own_work.h). */
static int write_chunk(struct trace_session *s, uint32_t kind, uint32_t tid,
		       const struct iovec *parts, int n)
{
	trace_own_begin();
	int rc = write_chunk_now(s, kind, tid, parts, n);
	trace_own_end();
	return rc;
}

int trace_write_process(struct trace_session *s, uint32_t event, uint32_t parent_image,
			uint32_t ppid, int32_t status, const char *exe, const char *command,
			size_t command_len)
{
	struct trace_process_record r = {event, parent_image, ppid, status, 0, 0};
	r.exe_len = exe ? (uint32_t)strlen(exe) : 0;
	r.command_len = (uint32_t)command_len;
	struct iovec parts[3] = {
	    {&r, sizeof(r)}, {(void *)exe, r.exe_len}, {(void *)command, command_len}};
	return write_chunk(s, CHUNK_PROCESS, s->pid, parts, 3);
}

/* A process record without strings, `extra` after it. */
static int write_process_extra(struct trace_session *s, uint32_t event, int32_t status,
			       const void *extra, size_t len)
{
	struct trace_process_record r = {event, 0, 0, status, 0, 0};
	struct iovec parts[2] = {{&r, sizeof(r)}, {(void *)extra, len}};
	return write_chunk(s, CHUNK_PROCESS, s->pid, parts, 2);
}

int trace_write_exit_usage(struct trace_session *s, int32_t status,
			   const struct trace_process_usage *usage)
{
	return write_process_extra(s, PROCESS_EXIT, status, usage, sizeof(*usage));
}

int trace_write_functions(struct trace_session *s, const struct trace_function_counts *counts)
{
	return write_process_extra(s, PROCESS_FUNCTIONS, 0, counts, sizeof(*counts));
}

int trace_write_exit_of(struct trace_session *s, uint32_t pid, int32_t status)
{
	struct trace_session child = *s;
	child.image = 0; /* the reader gives it to pid's last image */
	child.pid = pid;
	int rc = trace_write_process(&child, PROCESS_EXIT, 0, 0, status, NULL, NULL, 0);
	if (child.broken) {
		s->broken = 1;
		s->claim_errno = child.claim_errno;
	}
	return rc;
}

int trace_write_module(struct trace_session *s, uint32_t event, uint64_t load_bias, uint64_t low,
		       uint64_t high, const void *build_id, uint32_t build_id_len, const char *path)
{
	struct trace_module_record r = {event, build_id_len, load_bias, low, high, 0, 0};
	r.path_len = (uint32_t)strlen(path);
	struct iovec parts[3] = {
	    {&r, sizeof(r)}, {(void *)build_id, build_id_len}, {(void *)path, r.path_len}};
	return write_chunk(s, CHUNK_MODULE, s->pid, parts, 3);
}

int trace_write_thread(struct trace_session *s, uint32_t tid, uint32_t event, const char *name)
{
	struct trace_thread_record r = {event, name ? (uint32_t)strlen(name) : 0};
	struct iovec parts[2] = {{&r, sizeof(r)}, {(void *)name, r.name_len}};
	return write_chunk(s, CHUNK_THREAD, tid, parts, 2);
}

int trace_write_crash(struct trace_session *s, uint32_t tid, int signal, int code,
		      uint64_t fault_address, const uint64_t *frames, uint32_t nframes,
		      uint32_t flags)
{
	trace_records_flush(s); /* a crash record goes out now, with those gathered */
	struct trace_crash_record r = {signal, code, fault_address, nframes, flags};
	struct iovec parts[2] = {{&r, sizeof(r)}, {(void *)frames, nframes * sizeof(*frames)}};
	return write_chunk(s, CHUNK_CRASH, tid, parts, 2);
}
