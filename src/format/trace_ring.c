/*
 * trace_ring.c - a trace file of constant size (record --ring): its event
 * windows live in a fixed set of slots, reused oldest first.
 *
 * trace_format.h ("A ring") gives the layout.  Every thread writes into a
 * slot of its own and, when its window is full, copies it into another
 * slot.  The fairness rule (choose_victim): a free slot while there are
 * any; else the oldest whole window of the thread that holds the most
 * slots, counting the one it writes in and copies being made (so the
 * busiest thread reuses its own); of threads holding as many, the one that
 * wrote the most windows.  A thread that ended keeps its last window while
 * such windows fill at most half the ring.  So every thread keeps its most
 * recent windows and one that calls rarely is not pushed out by busy ones.
 * A window no slot can take is begun again in place (counted overwritten);
 * a thread that finds no slot of its own writes in memory and copies in
 * (its calls since its last copy are lost if the process dies).  The slot
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
#include <sys/statvfs.h>
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

/* Whether the filesystem of the session's file has `size` bytes free: a
 * ring's slots get their disk blocks as they are first used, and a ring
 * that cannot have them all would stop short of its size. */
static int room_for(const struct trace_session *s, uint64_t size)
{
	struct statvfs fs;
	if (fstatvfs(s->fd, &fs) < 0)
		return 1; /* cannot tell: the slots say it when they fail */
	return (uint64_t)fs.f_bavail * fs.f_frsize >= size;
}

const char *trace_ring_refusal(int err)
{
	if (err == ENOSPC)
		return "the ring is larger than the free space of the trace's filesystem";
	return strerror(err);
}

int trace_session_make_ring(struct trace_session *s, uint64_t size)
{
	if (size < TRACE_RING_MIN || size > TRACE_RING_MAX ||
	    s->header->next_offset != TRACE_HEADER_SIZE) {
		errno = EINVAL;
		return -1;
	}
	if (!room_for(s, size)) {
		errno = ENOSPC;
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
	if (slot >= s->ring->slots)
		return; /* a window in memory (RING_PRIVATE) */
	__atomic_add_fetch(&s->ring->slot[slot].gen, 1, __ATOMIC_ACQ_REL);
}

struct ring_owner {
	uint32_t image, tid;
	uint32_t held;	  /* slots it has: whole, being filled, being written */
	uint32_t kept;	  /* whole windows (RING_KEPT): those that may be reused */
	uint32_t working; /* a window being written: the thread goes on */
	uint32_t written; /* windows it began (its newest one's number + 1) */
	uint32_t oldest;  /* its oldest whole window */
	uint64_t oldest_stamp;
};

/* The owner of slot `sl` in `o` (n of them so far), added when new; more
 * threads than RING_OWNERS count as the first. */
static struct ring_owner *owner_of(struct ring_owner *o, size_t *n,
				   const struct trace_ring_slot *sl)
{
	size_t j = 0;
	while (j < *n && (o[j].image != sl->image || o[j].tid != sl->tid))
		j++;
	if (j < *n)
		return &o[j];
	if (*n == RING_OWNERS)
		return &o[0];
	o[*n] = (struct ring_owner){sl->image, sl->tid, 0, 0, 0, 0, 0, UINT64_MAX};
	return &o[(*n)++];
}

/* Counts what each thread holds into `o` (at most RING_OWNERS threads);
 * how many threads. */
static size_t count_owners(const struct trace_ring_table *t, struct ring_owner *o)
{
	size_t n = 0;
	for (uint32_t i = 0; i < t->slots; i++) {
		const struct trace_ring_slot *sl = &t->slot[i];
		uint32_t state = __atomic_load_n(&sl->state, __ATOMIC_ACQUIRE);
		if (state == RING_FREE)
			continue;
		struct ring_owner *w = owner_of(o, &n, sl);
		w->held++;
		w->working += state == RING_WORKING;
		if (sl->seq >= w->written)
			w->written = sl->seq + 1;
		if (state != RING_KEPT)
			continue;
		w->kept++;
		if (sl->stamp < w->oldest_stamp) {
			w->oldest_stamp = sl->stamp;
			w->oldest = i;
		}
	}
	return n;
}

/* Whether owner `a` gives up a window before owner `b`: it holds more; or
 * as many, and it wrote more windows (it had its share); or as many, and
 * its oldest is older. */
static int gives_first(const struct ring_owner *a, const struct ring_owner *b)
{
	if (a->held != b->held)
		return a->held > b->held;
	if (a->written != b->written)
		return a->written > b->written;
	return a->oldest_stamp < b->oldest_stamp;
}

/* The slot to reuse (the fairness rule, trace_format.h "A ring"): the
 * oldest whole window of the thread that holds the most slots (its window
 * being written and copies being made count); of threads that hold as
 * many, the one that wrote the most windows, then the one whose oldest is
 * older.  The one window of a thread that ended is never taken while such
 * last windows fill at most half the ring: it cannot be made again.  -1:
 * none (every whole window is such a one); else *stamp is its window's. */
static int64_t choose_victim(const struct trace_ring_table *t, uint64_t *stamp)
{
	struct ring_owner o[RING_OWNERS];
	size_t n = count_owners(t, o), ended_last = 0;
	for (size_t j = 0; j < n; j++)
		ended_last += !o[j].working && o[j].held == 1 && o[j].kept == 1;
	const struct ring_owner *best = NULL;
	for (size_t j = 0; j < n; j++) {
		int last_of_ended = !o[j].working && o[j].held == 1;
		if (o[j].kept == 0 || (last_of_ended && 2 * ended_last <= t->slots))
			continue;
		if (!best || gives_first(&o[j], best))
			best = &o[j];
	}
	if (!best)
		return -1;
	*stamp = best->oldest_stamp;
	return best->oldest;
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

/* Slot `i`, just taken (RING_BUSY), is thread `tid`'s from now on: its
 * copy counts as the thread's while it is made. */
static void own_slot(struct trace_session *s, uint32_t i, uint32_t tid, uint32_t seq)
{
	struct trace_ring_slot *sl = &s->ring->slot[i];
	sl->image = s->image;
	sl->pid = s->pid;
	sl->tid = tid;
	sl->seq = seq;
}

/* A slot never used, for the caller alone (RING_BUSY); -1: none left. */
static int64_t take_fresh(struct trace_session *s, uint32_t tid, uint32_t seq)
{
	struct trace_ring_table *t = s->ring;
	if (__atomic_load_n(&t->next_free, __ATOMIC_RELAXED) >= t->slots)
		return -1;
	uint32_t i = __atomic_fetch_add(&t->next_free, 1, __ATOMIC_RELAXED);
	if (i >= t->slots)
		return -1;
	__atomic_store_n(&t->slot[i].state, RING_BUSY, __ATOMIC_RELAXED);
	/* Its disk blocks now, so that its mapping never faults; a slot that
	 * cannot have them (disk full) stays unused, nobody's. */
	if (trace_session_reserve(s->fd, trace_ring_slot_offset(s, i), s->header->ring_slot_size) <
	    0)
		return -1;
	own_slot(s, i, tid, seq);
	return i;
}

/* A slot for thread `tid` alone (RING_BUSY): a fresh one while there are
 * any, else a whole window reused (counted as overwritten); -1: none. */
static int64_t take_slot(struct trace_session *s, uint32_t tid, uint32_t seq)
{
	struct trace_ring_table *t = s->ring;
	int64_t fresh = take_fresh(s, tid, seq);
	if (fresh >= 0)
		return fresh;
	static uint32_t searches;
	if (__atomic_fetch_add(&searches, 1, __ATOMIC_RELAXED) % 64 == 0)
		trace_ring_reclaim(s, 0);
	for (int tries = 0; tries < 64; tries++) {
		uint64_t stamp;
		int64_t v = choose_victim(t, &stamp);
		if (v < 0)
			return -1;
		struct trace_ring_slot *sl = &t->slot[v];
		uint32_t kept = RING_KEPT;
		if (__atomic_compare_exchange_n(&sl->state, &kept, RING_BUSY, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED)) {
			/* Taken and filled again by another thread since it was
			 * chosen: it holds that thread's newest window now. */
			if (sl->stamp != stamp) {
				__atomic_store_n(&sl->state, RING_KEPT, __ATOMIC_RELEASE);
				continue;
			}
			__atomic_add_fetch(&s->header->ring_overwritten_windows, 1,
					   __ATOMIC_RELAXED);
			__atomic_add_fetch(&s->header->ring_overwritten_calls, sl->calls,
					   __ATOMIC_RELAXED);
			own_slot(s, (uint32_t)v, tid, seq);
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

/* A window in memory for a thread that found no slot of its own (every
 * slot is being written or is a thread's last): copied into the ring when
 * full, as the others are, and when the thread ends.  Its calls since its
 * last copy are lost if the process dies. */
static uint32_t private_window(struct trace_session *s, struct trace_chunk **chunk, void **map,
			       size_t *map_len)
{
	uint32_t size = s->header->ring_slot_size;
	void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return 0;
	__atomic_add_fetch(&s->header->ring_private_threads, 1, __ATOMIC_RELAXED);
	*chunk = m;
	*map = m;
	*map_len = size;
	return TRACE_RING_PRIVATE;
}

uint32_t trace_ring_open_window(struct trace_session *s, uint32_t tid, uint32_t seq,
				struct trace_chunk **chunk, void **map, size_t *map_len)
{
	int64_t i = take_slot(s, tid, seq);
	if (i < 0)
		return private_window(s, chunk, map, map_len);
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

/* The full window of `st` into a slot taken for it; when there is none (a
 * thread's window in each), its calls are counted overwritten. */
static void store_window(struct trace_stream *st, uint32_t used)
{
	struct trace_session *s = st->session;
	int64_t i = take_slot(s, st->tid, st->chunk->seq);
	if (i >= 0 && write_window(st, (uint32_t)i, used) == 0)
		return;
	__atomic_add_fetch(&s->header->ring_overwritten_windows, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&s->header->ring_overwritten_calls, st->window_calls, __ATOMIC_RELAXED);
}

int trace_ring_copy_out(struct trace_stream *st)
{
	struct trace_session *s = st->session;
	struct trace_chunk *c = st->chunk;
	uint32_t used = (uint32_t)(st->pos - (uint8_t *)(c + 1));
	store_window(st, used);
	trace_ring_change(s, st->slot - 1, 1);
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_SKIP, __ATOMIC_RELEASE);
	memset(c + 1, 0, used);
	return 0; /* the gen goes even once the next window has begun */
}

void trace_ring_window_begun(struct trace_stream *st)
{
	struct trace_session *s = st->session;
	if (st->slot == TRACE_RING_PRIVATE)
		return;
	s->ring->slot[st->slot - 1].seq = st->chunk->seq;
	trace_ring_change(s, st->slot - 1, 0);
}

void trace_ring_window_closed(struct trace_stream *st)
{
	if (!st->slot || !st->session->ring)
		return;
	if (st->slot == TRACE_RING_PRIVATE)
		store_window(st, st->chunk->used);
	else
		settle_slot(st->session, st->slot - 1, st->tid, st->window_calls, RING_KEPT);
	st->slot = 0;
}
