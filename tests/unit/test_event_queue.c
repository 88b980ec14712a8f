/*
 * test_event_queue.c - the collector's queue of a ring's waiting events:
 * they leave in the order they came, each with its own copies, byte for
 * byte, while the queue grows, drops what was applied and moves the rest
 * to the front (events pushed and popped interleaved, copies of varied
 * sizes, some events with none); an emptied queue starts again at the
 * front of its buffers.
 */
#include "../../src/kernel/event_queue.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

#define EVENTS 20000

/* The copies of event i: (i % 97) bytes (none when 0), each (i + k) & 0xff. */
static uint32_t copy_len(uint32_t i)
{
	return i % 97;
}

static void push(struct event_queue *q, uint32_t i, uint8_t *ring)
{
	struct kernel_event *ev = event_queue_slot(q);
	if (!ev)
		return;
	memset(ev, 0, sizeof(*ev));
	ev->tick = i;
	ev->kind = KEV_SYS_ENTER;
	for (uint32_t k = 0; k < copy_len(i); k++)
		ring[k] = (uint8_t)(i + k);
	ev->capture = copy_len(i) ? ring : NULL;
	ev->capture_len = copy_len(i);
	CHECK(event_queue_keep(q) == 0, "event %u kept", i);
	memset(ring, 0xee, 128); /* the ring's bytes are gone once read */
}

/* Pops the first event and checks it is event `i` with its copies. */
static int pop_is(struct event_queue *q, uint32_t i)
{
	struct kernel_event *ev = event_queue_first(q);
	if (!ev || ev->tick != i)
		return 0;
	int ok = ev->capture_len == copy_len(i) && (ev->capture != NULL) == (copy_len(i) > 0);
	for (uint32_t k = 0; ok && k < copy_len(i); k++)
		ok = ev->capture[k] == (uint8_t)(i + k);
	event_queue_pop(q);
	return ok;
}

int main(void)
{
	struct event_queue q = {0};
	uint8_t ring[128];
	uint32_t pushed = 0, popped = 0, bad = 0;
	/* Waves: push 7, pop 5, so the queue is never empty for long and
	 * its buffers move and grow under waiting events. */
	while (pushed < EVENTS) {
		for (int k = 0; k < 7 && pushed < EVENTS; k++)
			push(&q, pushed++, ring);
		for (int k = 0; k < 5 && popped < pushed; k++)
			bad += !pop_is(&q, popped++);
	}
	CHECK(q.n - q.head == pushed - popped, "%zu waiting, not %u", q.n - q.head,
	      pushed - popped);
	while (popped < pushed)
		bad += !pop_is(&q, popped++);
	CHECK(bad == 0, "%u events out of order or with wrong copies", bad);
	CHECK(event_queue_first(&q) == NULL, "an emptied queue has no first event");
	CHECK(q.head == 0 && q.n == 0 && q.bytes_n == 0 && q.bytes_head == 0,
	      "an emptied queue starts again at the front");
	size_t cap = q.bytes_cap;
	push(&q, 96, ring);
	CHECK(q.bytes_n == 96 && q.bytes_cap == cap, "reused: %zu bytes in %zu (was %zu)",
	      q.bytes_n, q.bytes_cap, cap);
	CHECK(pop_is(&q, 96), "event 96 after the reuse");
	event_queue_free(&q);
	return CHECK_SUMMARY("event_queue");
}
