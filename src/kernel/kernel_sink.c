/*
 * kernel_sink.c - build one thread's CHUNK_KERNEL payload in memory and
 * write it into the trace as a whole chunk.
 *
 * Each chunk starts a fresh dictionary and counts its first delta from
 * base_tick; open calls go on from one chunk to the next, as they do across
 * a thread's event windows.
 */
#include "kernel_sink.h"
#include "../format/event_encode.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

int kernel_sink_init(struct kernel_sink *k, struct trace_session *s, uint32_t pid, uint32_t tid)
{
	memset(k, 0, sizeof(*k));
	k->session = s;
	k->pid = pid;
	k->tid = tid;
	return 0;
}

/* Room for `more` bytes past an event's EV_MAX_BYTES. */
static int reserve(struct kernel_sink *k, uint32_t more)
{
	uint32_t need = k->len + EV_MAX_BYTES + more + 16;
	if (need <= k->cap)
		return 0;
	uint32_t cap = k->cap ? k->cap : 4096;
	while (cap < need)
		cap *= 2;
	uint8_t *buf = realloc(k->buf, cap);
	if (!buf)
		return -1;
	k->buf = buf;
	k->cap = cap;
	return 0;
}

static uint64_t delta_to(struct kernel_sink *k, uint64_t tick)
{
	uint64_t unit = tick >> k->session->tick_shift;
	if (k->len == 0) {
		k->base_unit = k->last_unit = unit;
		return 0;
	}
	uint64_t d = unit > k->last_unit ? unit - k->last_unit : 0;
	if (unit > k->last_unit)
		k->last_unit = unit;
	return d;
}

static uint32_t fid_of(struct kernel_sink *k, uint64_t address, uint8_t **p)
{
	uint32_t slot =
	    (uint32_t)((address * 0x9e3779b97f4a7c15ull) >> 40) & (KERNEL_SINK_DICT - 1);
	while (k->dict_used[slot] && k->dict_addr[slot] != address)
		slot = (slot + 1) & (KERNEL_SINK_DICT - 1);
	if (k->dict_used[slot])
		return k->dict_fid[slot];
	*p = encode_define(*p, address);
	if (k->next_fid < KERNEL_SINK_DICT / 2) { /* else define again each time */
		k->dict_used[slot] = 1;
		k->dict_addr[slot] = address;
		k->dict_fid[slot] = k->next_fid;
	}
	return k->next_fid++;
}

static void put_values(struct kernel_sink *k, uint8_t *p, unsigned kind, const uint8_t *values,
		       uint32_t len)
{
	if (len > 0)
		p = encode_values(p, kind, values, len);
	k->len = (uint32_t)(p - k->buf);
	if (k->len >= KERNEL_SINK_CHUNK)
		kernel_sink_flush(k);
}

int kernel_sink_enter(struct kernel_sink *k, uint64_t address, uint64_t tick, const uint8_t *values,
		      uint32_t len)
{
	if (reserve(k, len + 12) < 0)
		return -1;
	uint64_t delta = delta_to(k, tick);
	uint8_t *p = k->buf + k->len;
	uint32_t fid = fid_of(k, address, &p);
	p = encode_enter(p, fid, delta);
	put_values(k, p, EV_ARGS, values, len);
	return 0;
}

int kernel_sink_exit(struct kernel_sink *k, uint64_t tick, const uint8_t *values, uint32_t len)
{
	if (reserve(k, len + 12) < 0)
		return -1;
	uint64_t delta = delta_to(k, tick);
	put_values(k, encode_exit(k->buf + k->len, delta), EV_RETVAL, values, len);
	return 0;
}

static void fill_header(struct kernel_sink *k, struct trace_chunk *c, uint32_t length)
{
	memset(c, 0, sizeof(*c));
	c->magic = TRACE_CHUNK_MAGIC;
	c->kind = CHUNK_KERNEL;
	c->header_size = sizeof(*c);
	c->length = length;
	c->used = k->len;
	c->image = 0;
	c->pid = k->pid;
	c->tid = k->tid;
	c->seq = k->seq++;
	c->base_tick = k->base_unit;
	c->clock_ns = trace_clock_monotonic_ns();
	c->clock_tick =
	    k->session->header->clock == TRACE_CLOCK_TSC ? trace_clock_tsc() : c->clock_ns;
}

int kernel_sink_flush(struct kernel_sink *k)
{
	if (k->len == 0)
		return 0;
	struct trace_chunk c;
	static const uint8_t zeros[8];
	uint32_t length = (uint32_t)((sizeof(c) + k->len + 7) & ~7u);
	uint64_t off = trace_session_claim(k->session, length);
	int rc = -1;
	if (off != 0) {
		fill_header(k, &c, length);
		struct iovec iov[3] = {{&c, sizeof(c)},
				       {k->buf, k->len},
				       {(void *)zeros, length - sizeof(c) - k->len}};
		rc = pwritev(k->session->fd, iov, 3, (off_t)off) == (ssize_t)length ? 0 : -1;
	}
	if (rc < 0)
		k->dropped++;
	k->len = 0;
	k->next_fid = 0;
	memset(k->dict_used, 0, sizeof(k->dict_used));
	return rc;
}

void kernel_sink_destroy(struct kernel_sink *k)
{
	kernel_sink_flush(k);
	free(k->buf);
	k->buf = NULL;
	k->cap = 0;
}
