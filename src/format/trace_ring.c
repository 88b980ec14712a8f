/*
 * trace_ring.c - a trace file of constant size (record --ring): its event
 * windows live in a fixed set of slots, reused oldest first.
 *
 * trace_format.h ("A ring") gives the layout.  Every thread writes into a
 * slot of its own and, when its window is full, copies it into another
 * slot (a free one, else the oldest of the thread holding the most: its own
 * for the busiest thread), so that a thread keeps its most recent windows
 * and a thread that calls rarely is not pushed out by a busy one.  The slot
 * table is mapped MAP_SHARED by every process of the session; slots change
 * hands with a compare-and-swap on their state.  Nothing here allocates.
 */
#include "trace_writer.h"
#include "trace_writer_internal.h"

#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RING_PAGE 4096u
#define RING_MAX_SLOTS 4096u
#define RING_OWNERS 128 /* threads told apart when a slot is taken from one */

int trace_ring_parse_size(const char *text, uint64_t *size)
{
	uint64_t v = 0;
	const char *p = text;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > TRACE_RING_MAX)
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (p == text)
		return -1;
	static const char units[] = "KMG";
	for (int i = 0; i < 3; i++) {
		if (*p == units[i] || *p == units[i] + ('a' - 'A')) {
			v <<= 10 * (i + 1);
			if (*++p == 'i') /* 16MiB */
				p++;
			break;
		}
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p || v < TRACE_RING_MIN || v > TRACE_RING_MAX)
		return -1;
	*size = v;
	return 0;
}

static uint64_t round_page(uint64_t n)
{
	return (n + RING_PAGE - 1) & ~(uint64_t)(RING_PAGE - 1);
}

/* A sixteenth of the ring, within the window sizes, and at most
 * RING_MAX_SLOTS slots. */
static uint32_t ring_slot_size(uint64_t size)
{
	uint64_t slot = size / 16;
	if (slot > TRACE_DEFAULT_WINDOW)
		slot = TRACE_DEFAULT_WINDOW;
	if (slot < TRACE_MIN_WINDOW)
		slot = TRACE_MIN_WINDOW;
	while (size / slot > RING_MAX_SLOTS && slot < TRACE_MAX_WINDOW)
		slot *= 2;
	return (uint32_t)(slot & ~(uint64_t)(RING_PAGE - 1));
}

static size_t table_bytes(uint32_t slots)
{
	return sizeof(struct trace_ring_table) + (size_t)slots * sizeof(struct trace_ring_slot);
}

int trace_ring_map(struct trace_session *s)
{
	const struct trace_file_header *h = s->header;
	if (h->ring_slots == 0)
		return 0;
	if (h->ring_table % 8 || h->ring_slot_size < TRACE_MIN_WINDOW) {
		errno = EINVAL;
		return -1;
	}
	uint64_t page_off = h->ring_table & ~(uint64_t)(RING_PAGE - 1);
	size_t len = (size_t)round_page(h->ring_table - page_off + table_bytes(h->ring_slots));
	void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd, (off_t)page_off);
	if (map == MAP_FAILED)
		return -1;
	s->ring = (struct trace_ring_table *)((char *)map + (h->ring_table - page_off));
	s->ring_map_len = len;
	return 0;
}

void trace_ring_unmap(struct trace_session *s)
{
	if (!s->ring)
		return;
	uintptr_t base = (uintptr_t)s->ring & ~(uintptr_t)(RING_PAGE - 1);
	munmap((void *)base, s->ring_map_len);
	s->ring = NULL;
}

uint64_t trace_ring_slot_offset(const struct trace_session *s, uint32_t slot)
{
	return s->ring->first_slot + (uint64_t)slot * s->header->ring_slot_size;
}

/* Writes an empty chunk header (CHUNK_SKIP) of `length` at `off`. */
static int write_skip(struct trace_session *s, uint64_t off, uint32_t length)
{
	struct trace_chunk c;
	trace_chunk_fill(&c, CHUNK_SKIP, length, s, 0);
	return pwrite(s->fd, &c, sizeof(c), (off_t)off) == (ssize_t)sizeof(c) ? 0 : -1;
}

int trace_session_make_ring(struct trace_session *s, uint64_t size)
{
	if (size < TRACE_RING_MIN || size > TRACE_RING_MAX ||
	    s->header->next_offset != TRACE_HEADER_SIZE) {
		errno = EINVAL;
		return -1;
	}
	uint32_t slot = ring_slot_size(size), slots = (uint32_t)(size / slot);
	uint32_t table_len = (uint32_t)round_page(sizeof(struct trace_chunk) + table_bytes(slots));
	uint64_t table_off = trace_session_claim(s, table_len);
	if (table_off == 0 || write_skip(s, table_off, table_len) < 0)
		return -1;
	/* The slots get disk blocks when first used: a short run of a big
	 * ring takes little space. */
	uint64_t first = trace_session_claim_sparse(s, (uint64_t)slots * slot);
	if (first == 0)
		return -1;
	for (uint32_t i = 0; i < slots; i++)
		if (write_skip(s, first + (uint64_t)i * slot, slot) < 0)
			return -1;
	struct trace_file_header *h = s->header;
	h->ring_table = table_off + sizeof(struct trace_chunk);
	h->ring_slot_size = slot;
	h->window_size = slot;
	s->window_size = slot;
	__atomic_store_n(&h->ring_slots, slots, __ATOMIC_RELEASE);
	if (trace_ring_map(s) < 0)
		return -1;
	s->ring->slots = slots;
	s->ring->first_slot = first;
	return 0;
}

void trace_ring_change(struct trace_session *s, uint32_t slot, int begin)
{
	(void)begin; /* odd after a begin, even after its end */
	__atomic_add_fetch(&s->ring->slot[slot].gen, 1, __ATOMIC_ACQ_REL);
}

struct ring_owner {
	uint32_t image, tid, count, oldest;
	uint64_t oldest_stamp;
};

/* Counts the whole windows each thread holds into `o` (at most
 * RING_OWNERS threads); how many threads. */
static size_t count_owners(const struct trace_ring_table *t, struct ring_owner *o)
{
	size_t n = 0;
	for (uint32_t i = 0; i < t->slots; i++) {
		const struct trace_ring_slot *sl = &t->slot[i];
		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != RING_KEPT)
			continue;
		size_t j = 0;
		while (j < n && (o[j].image != sl->image || o[j].tid != sl->tid))
			j++;
		if (j == n) {
			if (n == RING_OWNERS)
				j = 0; /* more threads than told apart: the first's */
			else
				o[n++] = (struct ring_owner){sl->image, sl->tid, 0, i, UINT64_MAX};
		}
		o[j].count++;
		if (sl->stamp < o[j].oldest_stamp) {
			o[j].oldest_stamp = sl->stamp;
			o[j].oldest = i;
		}
	}
	return n;
}

/* The slot to reuse: the oldest window of the thread that holds the most
 * (of two that hold as many, the one whose oldest is older); -1: none. */
static int64_t choose_victim(const struct trace_ring_table *t)
{
	struct ring_owner o[RING_OWNERS];
	size_t n = count_owners(t, o), best = 0;
	if (n == 0)
		return -1;
	for (size_t j = 1; j < n; j++)
		if (o[j].count > o[best].count ||
		    (o[j].count == o[best].count && o[j].oldest_stamp < o[best].oldest_stamp))
			best = j;
	return o[best].oldest;
}

/* Whether the writer of working slot `sl` is gone: its process ended
 * (`dead_pids`), or it is an earlier image of this process (an exec ended
 * its threads). */
static int writer_gone(const struct trace_session *s, const struct trace_ring_slot *sl,
		       int dead_pids)
{
	if (sl->pid == s->pid)
		return sl->image != s->image;
	return dead_pids && kill((pid_t)sl->pid, 0) < 0 && errno == ESRCH;
}

void trace_ring_reclaim(struct trace_session *s, int own_only)
{
	struct trace_ring_table *t = s->ring;
	int saved = errno;
	for (uint32_t i = 0; t && i < t->slots; i++) {
		struct trace_ring_slot *sl = &t->slot[i];
		uint32_t working = RING_WORKING;
		if (__atomic_load_n(&sl->state, __ATOMIC_ACQUIRE) != RING_WORKING ||
		    !writer_gone(s, sl, !own_only) ||
		    !__atomic_compare_exchange_n(&sl->state, &working, RING_BUSY, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		sl->calls = trace_ring_count_calls(s, i);
		/* Its writer's last window: its older ones go first. */
		sl->stamp = __atomic_fetch_add(&t->next_stamp, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&sl->state, RING_KEPT, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/* A slot for the caller alone (RING_BUSY): a fresh one while there are
 * any, else a whole window reused (counted as overwritten); -1: none. */
static int64_t take_slot(struct trace_session *s)
{
	struct trace_ring_table *t = s->ring;
	if (__atomic_load_n(&t->next_free, __ATOMIC_RELAXED) < t->slots) {
		uint32_t i = __atomic_fetch_add(&t->next_free, 1, __ATOMIC_RELAXED);
		if (i < t->slots) {
			__atomic_store_n(&t->slot[i].state, RING_BUSY, __ATOMIC_RELAXED);
			/* Its disk blocks now, so that its mapping never faults; a
			 * slot that cannot have them (disk full) stays unused. */
			if (trace_session_reserve(s->fd, trace_ring_slot_offset(s, i),
						  s->header->ring_slot_size) < 0)
				return -1;
			return i;
		}
	}
	static uint32_t searches;
	if (__atomic_fetch_add(&searches, 1, __ATOMIC_RELAXED) % 64 == 0)
		trace_ring_reclaim(s, 0);
	for (int tries = 0; tries < 64; tries++) {
		int64_t v = choose_victim(t);
		if (v < 0)
			return -1;
		struct trace_ring_slot *sl = &t->slot[v];
		uint32_t kept = RING_KEPT;
		if (__atomic_compare_exchange_n(&sl->state, &kept, RING_BUSY, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			__atomic_add_fetch(&s->header->ring_overwritten_windows, 1,
					   __ATOMIC_RELAXED);
			__atomic_add_fetch(&s->header->ring_overwritten_calls, sl->calls,
					   __ATOMIC_RELAXED);
			return v;
		}
	}
	return -1;
}

/* Hands slot `i` over: whose it is, what it holds, and its new state. */
static void settle_slot(struct trace_session *s, uint32_t i, uint32_t tid, uint64_t calls,
			uint32_t state)
{
	struct trace_ring_slot *sl = &s->ring->slot[i];
	sl->image = s->image;
	sl->pid = s->pid;
	sl->tid = tid;
	sl->calls = calls;
	sl->stamp = __atomic_fetch_add(&s->ring->next_stamp, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&sl->state, state, __ATOMIC_RELEASE);
}

uint32_t trace_ring_open_window(struct trace_session *s, uint32_t tid, struct trace_chunk **chunk,
				void **map, size_t *map_len)
{
	int64_t i = take_slot(s);
	if (i < 0)
		return 0;
	uint32_t size = s->header->ring_slot_size;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s->fd,
		       (off_t)trace_ring_slot_offset(s, (uint32_t)i));
	if (m == MAP_FAILED) {
		settle_slot(s, (uint32_t)i, 0, 0, RING_KEPT);
		return 0;
	}
	trace_ring_change(s, (uint32_t)i, 1);
	struct trace_chunk *c = m;
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_SKIP, __ATOMIC_RELEASE);
	memset(c + 1, 0, size - sizeof(*c));
	settle_slot(s, (uint32_t)i, tid, 0, RING_WORKING);
	*chunk = c;
	*map = m;
	*map_len = size;
	return (uint32_t)i + 1; /* its gen goes even once the window has begun */
}

/* Writes the window of `st` into slot `i` (RING_BUSY): header first, as
 * CHUNK_SKIP, then the payload, then the kind that makes it count. */
static int write_window(struct trace_stream *st, uint32_t i, uint32_t used)
{
	struct trace_session *s = st->session;
	uint64_t off = trace_ring_slot_offset(s, i);
	struct trace_chunk h;
	memcpy(&h, st->chunk, sizeof(h));
	h.length = s->header->ring_slot_size;
	h.used = used;
	h.kind = CHUNK_SKIP;
	uint16_t kind = CHUNK_EVENTS;
	trace_ring_change(s, i, 1);
	int ok = pwrite(s->fd, &h, sizeof(h), (off_t)off) == (ssize_t)sizeof(h) &&
		 pwrite(s->fd, st->chunk + 1, used, (off_t)(off + sizeof(h))) == (ssize_t)used &&
		 pwrite(s->fd, &kind, sizeof(kind),
			(off_t)(off + offsetof(struct trace_chunk, kind))) == (ssize_t)sizeof(kind);
	trace_ring_change(s, i, 0);
	settle_slot(s, i, st->tid, ok ? st->window_calls : 0, RING_KEPT);
	return ok ? 0 : -1;
}

int trace_ring_copy_out(struct trace_stream *st)
{
	struct trace_session *s = st->session;
	struct trace_chunk *c = st->chunk;
	uint32_t used = (uint32_t)(st->pos - (uint8_t *)(c + 1));
	int64_t i = take_slot(s);
	if (i < 0 || write_window(st, (uint32_t)i, used) < 0) {
		/* No slot for it (a thread in each): the window itself is
		 * reused, its events overwritten. */
		__atomic_add_fetch(&s->header->ring_overwritten_windows, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&s->header->ring_overwritten_calls, st->window_calls,
				   __ATOMIC_RELAXED);
	}
	trace_ring_change(s, st->slot - 1, 1);
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_SKIP, __ATOMIC_RELEASE);
	memset(c + 1, 0, used);
	return 0; /* the gen goes even once the next window has begun */
}

void trace_ring_window_closed(struct trace_stream *st)
{
	if (!st->slot || !st->session->ring)
		return;
	settle_slot(st->session, st->slot - 1, st->tid, st->window_calls, RING_KEPT);
	st->slot = 0;
}
