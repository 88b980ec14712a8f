/*
 * trace_writer.c - a thread's event stream: its windows of the trace file,
 * opened, copied out and closed (see trace_writer.h; a ring's slots are
 * trace_ring.c's).
 *
 * Nothing here allocates with malloc: the runtime calls it from inside the
 * traced program, possibly in a fork child or at exit.
 */
#include "trace_writer.h"
#include "trace_writer_internal.h"
#include "own_work.h"

#include <stddef.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE_MASK_4K ((uint64_t)4095)

/* ---- event streams ------------------------------------------------------ */

static size_t fid_cache_size(void)
{
	return TRACE_FID_CACHE_SIZE * sizeof(struct trace_fid_slot);
}

/* The tag of generation `g` (trace_writer.h: struct trace_fid_slot). */
static uint64_t fid_tag(uint64_t g)
{
	return g << TRACE_FID_GENERATION_SHIFT;
}

static size_t open_calls_size(uint32_t cap)
{
	return (size_t)cap * sizeof(struct trace_open_call);
}

int trace_stream_init(struct trace_stream *st, struct trace_session *s, uint32_t tid)
{
	memset(st, 0, sizeof(*st));
	st->session = s;
	st->tid = tid;
	st->tick_shift = s->tick_shift;
	st->fid_tag = fid_tag(1); /* the fresh cache's zeros are no window's */
	/* Populated: every page is soon read and then written, and two faults
	 * each (the zero page, then its copy) cost more than filling them. */
	void *fids = mmap(NULL, fid_cache_size(), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (fids == MAP_FAILED)
		return -1;
#ifdef MADV_WIPEONFORK
	/* A fork child gets the cache as zeros (no key: trace_writer.h)
	 * instead of its parent's pages shared copy-on-write, each of which
	 * it or its parent would fault and copy at its next write. */
	madvise(fids, fid_cache_size(), MADV_WIPEONFORK);
#endif
	void *calls = mmap(NULL, open_calls_size(TRACE_OPEN_CALLS), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (calls == MAP_FAILED) {
		munmap(fids, fid_cache_size());
		return -1;
	}
	st->fids = fids;
	st->open_calls = calls;
	st->open_cap = TRACE_OPEN_CALLS;
	return 0;
}

/* The stack of open calls doubles when a call goes deeper than it: memory
 * in proportion to the depth, as the program's own stack is. */
int trace_stream_reserve_depth(struct trace_stream *st, uint32_t depth)
{
	if (depth < st->open_cap)
		return 0;
	if (!st->open_calls || st->open_cap >= (1u << 30))
		return -1;
	uint32_t cap = st->open_cap;
	while (cap <= depth && cap < (1u << 30))
		cap *= 2;
	void *calls = mremap(st->open_calls, open_calls_size(st->open_cap), open_calls_size(cap),
			     MREMAP_MAYMOVE);
	if (calls == MAP_FAILED)
		return -1;
	st->open_calls = calls;
	st->open_cap = cap;
	return 0;
}

void trace_stream_destroy(struct trace_stream *st)
{
	trace_stream_close(st);
	if (st->fids)
		munmap(st->fids, fid_cache_size());
	if (st->open_calls)
		munmap(st->open_calls, open_calls_size(st->open_cap));
	st->fids = NULL;
	st->open_calls = NULL;
	st->open_cap = 0;
}

void trace_stream_close(struct trace_stream *st)
{
	if (!st->map)
		return;
	uint8_t *data = (uint8_t *)(st->chunk + 1);
	__atomic_store_n(&st->chunk->used, (uint32_t)(st->pos - data), __ATOMIC_RELEASE);
	trace_ring_window_closed(st);
	munmap(st->map, st->map_len);
	trace_stream_abandon(st);
}

void trace_stream_fork_child(struct trace_stream *st)
{
	if (st->map)
		munmap(st->map, st->map_len); /* the parent's window */
	trace_stream_abandon(st);
	st->seq = 0;
	/* The cache came as zeros (trace_stream_init): filled in one go, not a
	 * fault for its first read and another for its first write per page. */
#ifdef MADV_POPULATE_WRITE
	if (st->fids)
		madvise(st->fids, fid_cache_size(), MADV_POPULATE_WRITE);
#endif
}

void trace_stream_abandon(struct trace_stream *st)
{
	st->map = NULL;
	st->chunk = NULL;
	st->pos = st->limit = NULL;
	st->slot = 0;
}

/* Small first windows: a short-lived thread (a shell's fork child, which
 * writes a page or two) claims little space, and its file system zeroes
 * little of it. */
static uint32_t next_window_size(const struct trace_stream *st)
{
	uint32_t size = st->session->window_size;
	if (!st->session->ring && st->seq < TRACE_SMALL_WINDOWS &&
	    (TRACE_FIRST_WINDOW << (2 * st->seq)) < size)
		size = TRACE_FIRST_WINDOW << (2 * st->seq);
	return size;
}

/* Where events of the window `c` stop: room for one more is left. */
static uint8_t *window_limit(const struct trace_chunk *c)
{
	return (uint8_t *)c + c->length - EV_MAX_BYTES;
}

void trace_stream_forget_functions(struct trace_stream *st)
{
	uint64_t next = (st->fid_tag >> TRACE_FID_GENERATION_SHIFT) + 1;
	if (next > TRACE_FID_GENERATIONS) { /* every tag is in use: start over */
		if (st->fids)
			memset(st->fids, 0, fid_cache_size());
		next = 1;
	}
	st->fid_tag = fid_tag(next);
}

/* Starts the stream's next window in chunk `c`, whose payload is zeros.
 * The header goes in as CHUNK_SKIP and becomes CHUNK_EVENTS once whole. */
static void window_begin(struct trace_stream *st, struct trace_chunk *c, uint32_t size,
			 uint64_t tick)
{
	struct trace_session *s = st->session;
	struct trace_chunk h;
	trace_chunk_fill(&h, CHUNK_SKIP, size, s, st->tid);
	h.seq = st->seq++;
	h.base_tick = tick >> s->tick_shift;
	h.magic = c->magic; /* a fresh chunk: 0 until the rest is there */
	memcpy(c, &h, sizeof(h));
	__atomic_store_n(&c->magic, TRACE_CHUNK_MAGIC, __ATOMIC_RELEASE);
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_EVENTS, __ATOMIC_RELEASE);
	st->chunk = c;
	st->pos = (uint8_t *)(c + 1);
	st->limit = window_limit(c);
	st->last_unit = tick >> s->tick_shift;
	st->next_fid = 0;
	st->window_calls = 0;
	trace_stream_forget_functions(st);
}

/* A ring's window begins with the calls open at its start (trace_format.h,
 * EV_OPEN_CALLS), the innermost ones that fit in a quarter of it: a reader
 * whose first window this is knows then what the exits in it end.  Calls
 * only counted (a depth limit) or entered before the process (a fork
 * child's) are left out, as their enters were. */
static void write_open_calls(struct trace_stream *st)
{
	uint32_t known = st->depth < st->open_cap ? st->depth : st->open_cap;
	uint32_t room = (uint32_t)((st->limit - st->pos) / 4 / EV_MAX_BYTES);
	uint32_t first = known > room ? known - room : 0, n = 0;
	if (first < st->depth_base)
		first = st->depth_base;
	for (uint32_t i = first; i < known; i++)
		n += st->open_calls[i].address != 0;
	if (n == 0)
		return;
	uint8_t *p = encode_open_calls(st->pos, n);
	for (uint32_t i = first; i < known; i++) {
		uint64_t address = st->open_calls[i].address;
		if (address) {
			uint32_t fid = trace_stream_fid(st, address, &p);
			p = encode_enter(p, fid, 0);
		}
	}
	st->pos = p;
}

/* The next window of a ring's thread: in the slot it has, after a copy of
 * the full one; else in a slot it takes. */
static int ring_refill(struct trace_stream *st, uint64_t tick)
{
	struct trace_session *s = st->session;
	if (st->map && st->slot) {
		trace_ring_copy_out(st);
	} else {
		trace_stream_close(st);
		struct trace_chunk *c;
		st->slot = trace_ring_open_window(s, st->tid, st->seq, &c, &st->map, &st->map_len);
		if (!st->slot) {
			st->lost++;
			return -1;
		}
		st->chunk = c;
	}
	window_begin(st, st->chunk, s->window_size, tick);
	write_open_calls(st);
	trace_ring_window_begun(st);
	return 0;
}

/* Copies the full window into a chunk of just its used bytes, and frees the
 * window's pages for the next one.  Pages a thread keeps writing cost nothing
 * more, while each page of a fresh file mapping costs a write fault (about
 * 5 us on ext4, against 1 us a page for pwrite).  The copy's header goes
 * first, as CHUNK_SKIP, then the payload, then the kind that makes it count:
 * a writer killed before that leaves a copy the reader skips.  A writer
 * killed after it, before the original is marked CHUNK_SKIP, leaves the
 * window twice, and the reader keeps one.  0, or -1 when nothing could be
 * copied. */
static int window_copy_out(struct trace_stream *st)
{
	struct trace_session *s = st->session;
	struct trace_chunk *c = st->chunk;
	uint32_t used = (uint32_t)(st->pos - (uint8_t *)(c + 1));
	uint32_t length = (uint32_t)((sizeof(*c) + used + 7) & ~(size_t)7);
	uint64_t off = trace_session_claim(s, length);
	if (off == 0)
		return -1;
	struct trace_chunk h;
	memcpy(&h, c, sizeof(h));
	h.length = length;
	h.used = used;
	h.kind = CHUNK_SKIP;
	uint16_t kind = CHUNK_EVENTS;
	if (pwrite(s->fd, &h, sizeof(h), (off_t)off) != (ssize_t)sizeof(h) ||
	    pwrite(s->fd, c + 1, used, (off_t)(off + sizeof(h))) != (ssize_t)used ||
	    pwrite(s->fd, &kind, sizeof(kind), (off_t)(off + offsetof(struct trace_chunk, kind))) !=
		(ssize_t)sizeof(kind))
		return -1;
	__atomic_store_n(&c->kind, (uint16_t)CHUNK_SKIP, __ATOMIC_RELEASE);
	memset(c + 1, 0, used);
	return 0;
}

/* Signals wait while a window is written out and replaced: a handler that
 * siglongjmps would leave it half done (faults still come through). */
static void block_async_signals(sigset_t *saved)
{
	sigset_t all;
	sigfillset(&all);
	static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGABRT, SIGSYS};
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_BLOCK, &all, saved);
}

static int stream_refill(struct trace_stream *st, uint64_t tick);

int trace_stream_refill(struct trace_stream *st, uint64_t tick)
{
	sigset_t saved;
	trace_own_begin();
	block_async_signals(&saved);
	int rc = stream_refill(st, tick);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	trace_own_end();
	return rc;
}

static int stream_refill(struct trace_stream *st, uint64_t tick)
{
	struct trace_session *s = st->session;
	if (s->ring)
		return ring_refill(st, tick);
	uint32_t size = next_window_size(st);
	if (st->map && st->chunk->length == size && window_copy_out(st) == 0) {
		window_begin(st, st->chunk, size, tick);
		return 0;
	}
	trace_stream_close(st);
	uint64_t off = trace_session_claim(s, size);
	if (off == 0)
		goto lost;
	uint64_t page_off = off & ~PAGE_MASK_4K;
	size_t map_len = (size_t)((off + size - page_off + PAGE_MASK_4K) & ~PAGE_MASK_4K);
	/* A thread's first window is mapped as it is written: a short process
	 * (a shell's child) fills a few of its pages, and populating the
	 * others costs more than the faults of those it writes.  Later
	 * windows are those of threads that fill them. */
	int populate = st->seq > 0 ? MAP_POPULATE : 0;
	void *map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | populate, s->fd,
			 (off_t)page_off);
	if (map == MAP_FAILED)
		goto lost;
	st->map = map;
	st->map_len = map_len;
	window_begin(st, (struct trace_chunk *)((char *)map + (off - page_off)), size, tick);
	return 0;
lost:
	st->lost++;
	return -1;
}

uint8_t *trace_stream_exit_elsewhere(struct trace_stream *st, uint8_t *p, uint64_t address,
				     uint64_t tick)
{
	uint32_t i = st->depth < st->open_cap ? st->depth : st->open_cap;
	while (i > 0 && st->open_calls[i - 1].address != address)
		i--;
	if (i == 0) /* ended already: nothing is written */
		return p;
	if (st->depth - 1 < st->depth_base)
		st->depth_base = st->depth - 1;
	st->depth = i - 1;
	uint32_t fid = trace_stream_fid(st, address, &p);
	return encode_exit_at(p, fid, trace_stream_delta(st, tick));
}

static int ensure_room(struct trace_stream *st, uint64_t tick)
{
	if (st->pos && st->pos < st->limit)
		return 0;
	return trace_stream_refill(st, tick);
}

int trace_stream_make_room(struct trace_stream *st, uint32_t len, uint64_t tick)
{
	if (st->pos && st->pos + len < st->limit)
		return 0;
	return trace_stream_refill(st, tick);
}

int trace_stream_values(struct trace_stream *st, unsigned kind, const uint8_t *values, uint32_t len)
{
	/* The limit keeps EV_MAX_BYTES of the window free past it. */
	if (!st->pos || len > TRACE_VALUES_MAX || st->pos + len + 8 > st->limit + EV_MAX_BYTES)
		return -1;
	st->pos = encode_values(st->pos, kind, values, len);
	return 0;
}

int trace_stream_enter(struct trace_stream *st, uint64_t address, uint64_t tick, uint64_t sp)
{
	if (ensure_room(st, tick) < 0)
		return -1;
	trace_stream_reserve_depth(st, st->depth);
	trace_stream_put_enter(st, address, tick, sp);
	return 0;
}

/* A call's recorded sp is its stack pointer when it called the enter hook:
 * the caller of setjmp has the jump's target there (or above it), every
 * call below it a lower one. */
uint32_t trace_stream_calls_kept(const struct trace_stream *st, uint64_t sp)
{
	if (st->depth > st->open_cap)
		return st->depth; /* deeper than remembered */
	uint32_t keep = st->depth;
	while (keep > 0 && st->open_calls[keep - 1].sp && st->open_calls[keep - 1].sp < sp)
		keep--;
	return keep;
}

int trace_stream_unwind_to(struct trace_stream *st, uint64_t sp, uint64_t tick,
			   uint32_t max_written)
{
	uint32_t keep = trace_stream_calls_kept(st, sp);
	uint32_t written = st->depth < max_written ? st->depth : max_written;
	uint32_t kept = keep < max_written ? keep : max_written;
	if (kept < written) {
		if (ensure_room(st, tick) < 0)
			return -1;
		uint32_t stay = kept > st->depth_base ? kept - st->depth_base : 0;
		st->pos = encode_unwind(st->pos, trace_stream_delta(st, tick), stay);
	}
	st->depth = keep;
	return 0;
}

int trace_stream_jump_stays_inside(const struct trace_stream *st, uint64_t sp)
{
	return st->depth > 0 && st->depth <= st->open_cap &&
	       trace_stream_calls_kept(st, sp) == st->depth;
}

void trace_stream_skip_enter(struct trace_stream *st, uint64_t sp)
{
	trace_stream_reserve_depth(st, st->depth);
	if (st->depth < st->open_cap)
		st->open_calls[st->depth] = (struct trace_open_call){0, sp};
	st->depth++;
}

void trace_stream_restore_limit(struct trace_stream *st)
{
	if (st->chunk && st->pos)
		st->limit = window_limit(st->chunk);
}

int trace_stream_close_interrupted(struct trace_stream *st)
{
	const struct trace_chunk *c = st->chunk;
	if (c && c->kind == CHUNK_EVENTS && st->pos >= (const uint8_t *)(c + 1) &&
	    st->pos < (const uint8_t *)c + c->length) {
		trace_stream_close(st);
		return 0;
	}
	trace_stream_abandon(st);
	return -1;
}

int trace_stream_exit(struct trace_stream *st, uint64_t address, uint64_t tick)
{
	if (st->depth == 0)
		return -1;
	if (ensure_room(st, tick) < 0)
		return -1;
	trace_stream_put_exit(st, address, tick);
	return 0;
}

int trace_stream_pause(struct trace_stream *st, uint64_t tick)
{
	uint32_t open = st->depth;
	st->depth = st->depth_base = 0;
	if (open == 0 || st->seq == 0)
		return 0; /* no call open, or none written: nothing to end */
	if (ensure_room(st, tick) < 0)
		return -1;
	st->pos = encode_pause(st->pos, trace_stream_delta(st, tick));
	return 0;
}

int trace_stream_mark(struct trace_stream *st, uint64_t tick, const char *text)
{
	size_t len = strnlen(text, TRACE_MARK_MAX);
	if (!st->pos || st->pos + len + 16 > st->limit) {
		if (trace_stream_refill(st, tick) < 0)
			return -1;
	}
	st->pos = encode_mark(st->pos, trace_stream_delta(st, tick), text, (uint32_t)len);
	return 0;
}
