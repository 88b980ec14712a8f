/*
 * event_queue.h - a perf ring's decoded kernel events waiting in the
 * collector to be applied in time order (kernel_collector.c), with the
 * copies of their system call arguments.
 *
 * Events leave in the order they came (first in, first out), so their
 * copies are kept in one growing byte buffer beside them, not one
 * allocation each: what was applied is dropped when room is needed (the
 * rest moved to the front), and both start again empty when the queue is.
 */
#ifndef CALLTRACE_EVENT_QUEUE_H
#define CALLTRACE_EVENT_QUEUE_H

#include "kernel_events.h"

#include <stddef.h>
#include <stdint.h>

struct event_queue {
	struct kernel_event *ev; /* waiting: [head, n) */
	size_t head, n, cap;
	uint8_t *bytes; /* copies of the waiting events: [bytes_head, bytes_n) */
	size_t bytes_head, bytes_n, bytes_cap;
};

/* A slot for the next event (to be filled, then kept with
 * event_queue_keep), or NULL when out of memory. */
struct kernel_event *event_queue_slot(struct event_queue *q);
/* Keeps the event filled in the slot, copying its copies (ev->capture,
 * valid while the ring is read) into the queue; 0, or -1 when out of
 * memory (the event is not kept). */
int event_queue_keep(struct event_queue *q);
/* The first waiting event (its copies at ev->capture), or NULL. */
struct kernel_event *event_queue_first(struct event_queue *q);
/* Drops the first waiting event (its copies too). */
void event_queue_pop(struct event_queue *q);
void event_queue_free(struct event_queue *q);

#endif
