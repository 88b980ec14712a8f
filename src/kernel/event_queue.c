/*
 * event_queue.c - a ring's waiting kernel events and their copies, in two
 * buffers reused for the whole session (see event_queue.h): no allocation
 * per event once they are large enough, and what is waiting moved to the
 * front only when what was applied is at least half of them.
 *
 * A waiting event's copies are found by their offset in `bytes`
 * (capture_at), never by a pointer: the buffer moves when it grows.
 */
#include "event_queue.h"

#include <stdlib.h>
#include <string.h>

struct kernel_event *event_queue_slot(struct event_queue *q)
{
	/* Room in front, when at least half of it is: each event moves once
	 * at most, on average. */
	if (q->n == q->cap && q->head > 0 && q->head >= q->cap / 2) {
		memmove(q->ev, q->ev + q->head, (q->n - q->head) * sizeof(*q->ev));
		q->n -= q->head;
		q->head = 0;
	}
	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 4096;
		struct kernel_event *p = realloc(q->ev, cap * sizeof(*p));
		if (!p)
			return NULL;
		q->ev = p;
		q->cap = cap;
	}
	return &q->ev[q->n];
}

/* Drops the copies of events applied: the rest to the front. */
static void compact_bytes(struct event_queue *q)
{
	size_t gone = q->bytes_head;
	memmove(q->bytes, q->bytes + gone, q->bytes_n - gone);
	q->bytes_n -= gone;
	q->bytes_head = 0;
	for (size_t i = q->head; i < q->n; i++)
		if (q->ev[i].capture_len)
			q->ev[i].capture_at -= (uint32_t)gone;
}

/* Room for `len` more bytes of copies; 0 or -1. */
static int bytes_room(struct event_queue *q, size_t len)
{
	if (q->bytes_n + len <= q->bytes_cap)
		return 0;
	if (q->bytes_head > 0 && q->bytes_head >= q->bytes_n / 2)
		compact_bytes(q);
	if (q->bytes_n + len <= q->bytes_cap)
		return 0;
	size_t cap = q->bytes_cap ? q->bytes_cap : 65536;
	while (cap < q->bytes_n + len)
		cap *= 2;
	uint8_t *p = realloc(q->bytes, cap);
	if (!p)
		return -1;
	q->bytes = p;
	q->bytes_cap = cap;
	return 0;
}

int event_queue_keep(struct event_queue *q)
{
	struct kernel_event *ev = &q->ev[q->n];
	if (ev->capture && ev->capture_len) {
		if (bytes_room(q, ev->capture_len) < 0)
			return -1;
		memcpy(q->bytes + q->bytes_n, ev->capture, ev->capture_len);
		ev->capture_at = (uint32_t)q->bytes_n;
		q->bytes_n += ev->capture_len;
	} else {
		ev->capture_len = 0;
	}
	ev->capture = NULL;
	q->n++;
	return 0;
}

struct kernel_event *event_queue_first(struct event_queue *q)
{
	if (q->head == q->n)
		return NULL;
	struct kernel_event *ev = &q->ev[q->head];
	ev->capture = ev->capture_len ? q->bytes + ev->capture_at : NULL;
	return ev;
}

void event_queue_pop(struct event_queue *q)
{
	struct kernel_event *ev = &q->ev[q->head++];
	if (ev->capture_len)
		q->bytes_head = ev->capture_at + ev->capture_len;
	if (q->head == q->n)
		q->head = q->n = q->bytes_head = q->bytes_n = 0;
}

void event_queue_free(struct event_queue *q)
{
	free(q->ev);
	free(q->bytes);
	memset(q, 0, sizeof(*q));
}
