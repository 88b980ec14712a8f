/*
 * kernel_stream.c - one thread's CHUNK_KERNEL chunks (see kernel_stream.h).
 */
#include "kernel_stream.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EVENT_ROOM (EV_MAX_BYTES + 8) /* a define, the event, a values header */

int kernel_stream_init(struct kernel_stream *ks, struct trace_session *s, uint32_t pid,
		       uint32_t tid, uint32_t capacity)
{
	memset(ks, 0, sizeof(*ks));
	if (capacity == 0)
		capacity = KERNEL_STREAM_SIZE;
	if (capacity < KERNEL_STREAM_MIN_SIZE)
		capacity = KERNEL_STREAM_MIN_SIZE;
	if (capacity > TRACE_MAX_WINDOW - sizeof(struct trace_chunk))
		capacity = TRACE_MAX_WINDOW - sizeof(struct trace_chunk);
	ks->buf = malloc(capacity);
	if (!ks->buf)
		return -1;
	ks->session = s;
	ks->pid = pid;
	ks->tid = tid;
	ks->tick_shift = s->tick_shift;
	ks->capacity = capacity;
	return 0;
}

static void reset_chunk(struct kernel_stream *ks)
{
	ks->used = 0;
	ks->next_fid = 0;
	memset(ks->dict, 0, sizeof(ks->dict));
}

/* Writes the chunk as the copy of a full window is written (trace_writer.c):
 * header as CHUNK_SKIP, payload, then the kind that makes it count, so that
 * a collector killed half-way leaves nothing the reader would misread. */
static int write_chunk(struct kernel_stream *ks)
{
	struct trace_session *s = ks->session;
	struct trace_chunk h;
	uint32_t length = (uint32_t)((sizeof(h) + ks->used + 7) & ~(size_t)7);
	uint64_t off = trace_session_claim(s, length);
	if (off == 0)
		return -1;
	memset(&h, 0, sizeof(h));
	h.magic = TRACE_CHUNK_MAGIC;
	h.kind = CHUNK_SKIP;
	h.header_size = sizeof(h);
	h.length = length;
	h.used = ks->used;
	h.image = 0;
	h.pid = ks->pid;
	h.tid = ks->tid;
	h.seq = ks->seq;
	h.base_tick = ks->base_unit;
	h.clock_ns = trace_clock_monotonic_ns();
	h.clock_tick = trace_clock_tick();
	uint16_t kind = CHUNK_KERNEL;
	if (pwrite(s->fd, &h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
	    pwrite(s->fd, ks->buf, ks->used, (off_t)(off + sizeof(h))) != (ssize_t)ks->used ||
	    pwrite(s->fd, &kind, sizeof(kind), (off_t)(off + offsetof(struct trace_chunk, kind))) !=
		(ssize_t)sizeof(kind))
		return -1;
	return 0;
}

int kernel_stream_flush(struct kernel_stream *ks)
{
	if (ks->used == 0)
		return 0;
	int rc = write_chunk(ks);
	if (rc == 0) {
		ks->seq++;
		ks->chunks++;
	} else {
		ks->lost_events += ks->events_in_chunk;
		ks->events -= ks->events_in_chunk;
	}
	ks->events_in_chunk = 0;
	reset_chunk(ks);
	return rc;
}

int kernel_stream_exec(struct kernel_stream *ks)
{
	int rc = kernel_stream_flush(ks);
	ks->seq = 0;
	/* The exec ended every call of the old image, the execve itself
	 * included: its return in the new image ends nothing there. */
	ks->depth = 0;
	return rc;
}

void kernel_stream_fini(struct kernel_stream *ks)
{
	if (ks->buf)
		kernel_stream_flush(ks);
	free(ks->buf);
	ks->buf = NULL;
}

/* Makes room for an event with `len` bytes of values: flushes a full
 * chunk.  0, or -1 when the event cannot be written. */
static int make_room(struct kernel_stream *ks, uint32_t len)
{
	if (len > TRACE_VALUES_MAX || !ks->buf)
		return -1;
	if ((uint64_t)ks->used + EVENT_ROOM + len <= ks->capacity)
		return 0;
	kernel_stream_flush(ks); /* a lost chunk is counted; go on with a fresh one */
	return (uint64_t)EVENT_ROOM + len <= ks->capacity ? 0 : -1;
}

/* The delta of the event at `tick`, in time units; the first event of a
 * chunk sets its base.  Times never go back: an event stamped before the
 * last one is taken to be at the same time. */
static uint64_t event_delta(struct kernel_stream *ks, uint64_t tick)
{
	uint64_t unit = tick >> ks->tick_shift;
	if (ks->used == 0) {
		if (unit < ks->last_unit)
			unit = ks->last_unit;
		ks->base_unit = ks->last_unit = unit;
		return 0;
	}
	if (unit < ks->last_unit)
		unit = ks->last_unit;
	uint64_t delta = unit - ks->last_unit;
	ks->last_unit = unit;
	return delta;
}

/* The fid of `address` in the chunk, defining it (at p) on a miss. */
static uint32_t chunk_fid(struct kernel_stream *ks, uint64_t address, uint8_t **p)
{
	uint32_t i = (uint32_t)((address * 0x9e3779b97f4a7c15ull) >> 55) % KERNEL_STREAM_DICT;
	for (uint32_t n = 0; n < KERNEL_STREAM_DICT; n++, i = (i + 1) % KERNEL_STREAM_DICT) {
		struct kernel_fid_slot *slot = &ks->dict[i];
		if (!slot->fid_plus_one) {
			slot->address = address;
			slot->fid_plus_one = ks->next_fid + 1;
			break;
		}
		if (slot->address == address)
			return slot->fid_plus_one - 1;
	}
	/* A full table (never, with a few hundred system calls) defines the
	 * address again: the reader takes the newest id. */
	*p = encode_define(*p, address);
	return ks->next_fid++;
}

static void put_values(struct kernel_stream *ks, uint8_t *p, unsigned kind, const uint8_t *values,
		       uint32_t len)
{
	if (len)
		p = encode_values(p, kind, values, len);
	ks->used = (uint32_t)(p - ks->buf);
	ks->events++;
	ks->events_in_chunk++;
}

int kernel_stream_enter(struct kernel_stream *ks, uint64_t tagged_address, uint64_t tick,
			const uint8_t *values, uint32_t len)
{
	if (make_room(ks, len) < 0)
		return -1;
	uint64_t delta = event_delta(ks, tick);
	uint8_t *p = ks->buf + ks->used;
	uint32_t fid = chunk_fid(ks, tagged_address, &p);
	p = encode_enter(p, fid, delta);
	ks->depth++;
	put_values(ks, p, EV_ARGS, values, len);
	return 0;
}

int kernel_stream_exit(struct kernel_stream *ks, uint64_t tick, const uint8_t *values, uint32_t len)
{
	if (ks->depth == 0) {
		ks->dropped_exits++;
		return -1;
	}
	if (make_room(ks, len) < 0)
		return -1;
	uint8_t *p = encode_exit(ks->buf + ks->used, event_delta(ks, tick));
	ks->depth--;
	put_values(ks, p, EV_RETVAL, values, len);
	return 0;
}

static uint8_t *put_bytes8(uint8_t *p, uint64_t v)
{
	*p++ = VALUE_BYTES;
	*p++ = 8;
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

uint32_t kernel_syscall_args(uint8_t *out, const uint64_t args[6])
{
	uint8_t *p = out;
	for (int i = 0; i < 6; i++)
		p = put_bytes8(p, args[i]);
	return (uint32_t)(p - out);
}

uint32_t kernel_syscall_ret(uint8_t *out, int64_t ret)
{
	return (uint32_t)(put_bytes8(out, (uint64_t)ret) - out);
}

int kernel_stream_syscall_enter(struct kernel_stream *ks, uint32_t nr, uint64_t tick,
				const uint64_t args[6])
{
	uint8_t values[KERNEL_SYSCALL_ARGS_BYTES];
	uint32_t len = kernel_syscall_args(values, args);
	return kernel_stream_enter(ks, TRACE_CALL_ADDRESS(CALL_SYSCALL, nr), tick, values, len);
}

int kernel_stream_syscall_exit(struct kernel_stream *ks, uint64_t tick, int64_t ret)
{
	uint8_t values[KERNEL_SYSCALL_RET_BYTES];
	uint32_t len = kernel_syscall_ret(values, ret);
	return kernel_stream_exit(ks, tick, values, len);
}

int kernel_stream_offcpu_enter(struct kernel_stream *ks, uint32_t reason, uint64_t tick)
{
	return kernel_stream_enter(ks, TRACE_CALL_ADDRESS(CALL_OFFCPU, reason), tick, NULL, 0);
}

int kernel_stream_offcpu_exit(struct kernel_stream *ks, uint64_t tick)
{
	return kernel_stream_exit(ks, tick, NULL, 0);
}
