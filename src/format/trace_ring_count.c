/*
 * trace_ring_count.c - how many calls a ring slot's window holds, for a
 * window whose writer ended without saying (its process was killed, or
 * exec'd): the ring counts the calls it overwrites.
 *
 * It reads the slot through pread (no mapping, no allocation) and walks the
 * events as trace_format.h defines them, counting the ENTERs but those an
 * EV_OPEN_CALLS names (entered in an earlier window).  It stops at the end
 * of the stream, or at anything it does not understand.
 */
#include "trace_writer.h"
#include "trace_writer_internal.h"

#include <unistd.h>

#define COUNT_BLOCK 4096u

struct slot_reader {
	int fd;
	uint64_t off, end; /* file offsets: next byte, end of the payload */
	uint8_t buf[COUNT_BLOCK];
	uint32_t at, len;
};

/* The next byte, or -1 at the end. */
static int next_byte(struct slot_reader *r)
{
	if (r->at == r->len) {
		if (r->off >= r->end)
			return -1;
		uint64_t want = r->end - r->off < COUNT_BLOCK ? r->end - r->off : COUNT_BLOCK;
		ssize_t n = pread(r->fd, r->buf, (size_t)want, (off_t)r->off);
		if (n <= 0)
			return -1;
		r->off += (uint64_t)n;
		r->at = 0;
		r->len = (uint32_t)n;
	}
	return r->buf[r->at++];
}

/* A varint into *v; 0 when it runs past the end. */
static int varint(struct slot_reader *r, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		int b = next_byte(r);
		if (b < 0)
			return 0;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 1;
	}
	return 0;
}

/* Skips `n` bytes; 0 when they run past the end. */
static int skip(struct slot_reader *r, uint64_t n)
{
	while (n-- > 0)
		if (next_byte(r) < 0)
			return 0;
	return 1;
}

/* One extended event of kind `kind` skipped; *open set by EV_OPEN_CALLS.
 * 0 at anything not understood. */
static int extended(struct slot_reader *r, unsigned kind, uint64_t *open)
{
	uint64_t a, b;
	switch (kind) {
	case EV_DEFINE:
	case EV_PAUSE:
		return varint(r, &a);
	case EV_EXIT_AT:
	case EV_UNWIND:
		return varint(r, &a) && varint(r, &b);
	case EV_MARK:
		return varint(r, &a) && varint(r, &b) && skip(r, b);
	case EV_ARGS:
	case EV_RETVAL:
		return varint(r, &a) && skip(r, a);
	case EV_OPEN_CALLS:
		return varint(r, open);
	}
	return 0;
}

uint64_t trace_ring_count_calls(const struct trace_session *s, uint32_t slot)
{
	struct slot_reader r = {.fd = s->fd, .at = 0, .len = 0};
	struct trace_chunk c;
	uint64_t off = trace_ring_slot_offset(s, slot), calls = 0, open = 0, v;
	if (pread(s->fd, &c, sizeof(c), (off_t)off) != (ssize_t)sizeof(c) ||
	    c.kind != CHUNK_EVENTS || c.length > s->header->ring_slot_size)
		return 0;
	r.off = off + sizeof(c);
	r.end = off + (c.used ? sizeof(c) + c.used : c.length);
	for (int b; (b = next_byte(&r)) > 0;) {
		if (b & 1) { /* ENTER */
			if (((b & 3) == 3 && !varint(&r, &v)) || !varint(&r, &v))
				break;
			if (open > 0)
				open--;
			else
				calls++;
		} else if ((b & 3) == 2) { /* EXIT */
			if ((b >> 2) == EV_SHORT_DELTA_MAX && !varint(&r, &v))
				break;
		} else if (!extended(&r, (unsigned)b >> 2, &open)) {
			break;
		}
	}
	return calls;
}
