/*
 * trace_kernel_index.c - the index of CHUNK_KERNEL chunks: each is checked
 * whole while the chunks are walked (a corrupt one is a problem, and
 * skipped), then, once every image is known and the clock set, given to
 * the thread (pid, tid) of the image that ran at its first event
 * (trace_reader.h says which), in time order, its gaps reported.
 */
#include "trace_cursor_internal.h"
#include "trace_reader_internal.h"

#include <stdlib.h>
#include <string.h>

struct trace_kernel_pending {
	uint64_t offset;
	uint64_t first_unit; /* time unit of its first event */
	uint64_t first_ns;   /* the same in ns (once the clock is set) */
	uint32_t pid, tid, seq;
	uint32_t events, bytes;
	int corrupt; /* skipped, but its number is not missing */
};

/* Decodes the chunk at `off` whole: its event count and first time, or
 * -1 when it is corrupt. */
static int check_chunk(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		       struct trace_kernel_pending *k)
{
	struct trace_window_ref ref = {off, c->seq};
	struct trace_substream s;
	struct trace_event ev;
	trace_substream_init(&s, r, &ref, 1, c->tid, 1);
	s.quiet = 1;
	k->events = 0;
	k->first_unit = c->base_tick;
	while (trace_substream_next(&s, &ev) && !s.corrupt) {
		if (k->events++ == 0)
			k->first_unit = s.tick;
	}
	trace_substream_fini(&s);
	return s.corrupt ? -1 : 0;
}

void trace_kernel_note(struct trace_reader *r, uint64_t off, const struct trace_chunk *c)
{
	struct trace_kernel_pending k = {
	    .offset = off, .pid = c->pid, .tid = c->tid, .seq = c->seq};
	if (c->used == 0)
		return; /* nothing in it */
	if (check_chunk(r, off, c, &k) < 0) {
		trace_reader_problem(r, off, "thread %u: corrupt kernel chunk, skipped", c->tid);
		k.corrupt = 1;
	}
	k.bytes = c->used;
	GROW(r->kernel_pending, r->nkernel_pending, r->cap_kernel_pending);
	r->kernel_pending[r->nkernel_pending++] = k;
}

/* The time of the chunk's first event, as the cursor will convert it. */
static uint64_t first_event_ns(const struct trace_reader *r, const struct trace_kernel_pending *k)
{
	struct trace_chunk h;
	memcpy(&h, r->data + k->offset, sizeof(h));
	double anchor_ns = (double)h.clock_ns - (double)r->header.start_mono_ns;
	uint64_t anchor_unit = h.clock_tick >> r->header.tick_shift;
	double ns = anchor_ns + (double)(int64_t)(k->first_unit - anchor_unit) * r->ns_per_unit;
	return ns < (double)TRACE_TIME_MAX ? (ns > 0 ? (uint64_t)ns : 0) : TRACE_TIME_MAX;
}

static int compare_pending(const void *a, const void *b)
{
	const struct trace_kernel_pending *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->first_unit != y->first_unit)
		return x->first_unit < y->first_unit ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Every image a program's runtime recorded, by pid, then id. */
struct image_key {
	uint32_t pid, id;
};

/* The images of one pid, in the order they began (ids are handed out in
 * that order), and when each took over the pid. */
struct pid_images {
	const struct image_key *keys; /* n of them */
	uint64_t *from_ns;	      /* from_ns[0] is 0: the first has everything before */
	size_t n, cap;
};

static int compare_image_keys(const void *a, const void *b)
{
	const struct image_key *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static struct image_key *sorted_images(const struct trace_reader *r, size_t *n)
{
	struct image_key *keys = malloc((r->nimages + 1) * sizeof(*keys));
	if (!keys)
		abort();
	*n = 0;
	for (size_t i = 0; i < r->nimages; i++)
		if (r->images[i].id != 0 && !r->images[i].kernel_only)
			keys[(*n)++] = (struct image_key){r->images[i].pid, r->images[i].id};
	qsort(keys, *n, sizeof(*keys), compare_image_keys);
	return keys;
}

/* The images of `pid`, in keys[0..n). */
static void collect_images(const struct image_key *keys, size_t n, uint32_t pid,
			   struct pid_images *out)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (keys[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	out->n = 0;
	while (lo + out->n < n && keys[lo + out->n].pid == pid)
		out->n++;
	out->keys = keys + lo;
	free(out->from_ns);
	out->from_ns = calloc(out->n ? out->n : 1, sizeof(uint64_t));
	if (!out->from_ns)
		abort();
}

static uint32_t image_id(const struct pid_images *im, size_t i)
{
	return im->keys[i].id;
}

/* Whether chunk k[j] begins a new run of the thread that execs: numbered
 * 0 after chunks of its own (its first chunk is 0 as well, wherever the
 * collector began). */
static int restarts(const struct trace_kernel_pending *k, size_t j)
{
	return k[j].tid == k[j].pid && k[j].seq == 0 && k[j - 1].tid == k[j].tid;
}

static int compare_times(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* How many of the n times (ascending) are at most `ns`. */
static size_t count_until(const uint64_t *times, size_t n, uint64_t ns)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (times[mid] <= ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* When each image of the pid took over: at the last new run of kernel
 * chunks (numbered 0 again, the collector's mark of an exec) of the thread
 * that execs (tid == pid) after the previous image's first record and by
 * its own first record; without one, at its first record.  k[0..n): the
 * pid's chunks. */
static void image_boundaries(const struct trace_reader *r, struct pid_images *im,
			     const struct trace_kernel_pending *k, size_t n)
{
	uint64_t *runs = malloc((n + 1) * sizeof(*runs));
	size_t nruns = 0;
	if (!runs)
		abort();
	for (size_t j = 1; j < n; j++)
		if (restarts(k, j))
			runs[nruns++] = k[j].first_ns;
	qsort(runs, nruns, sizeof(*runs), compare_times);
	for (size_t i = 1; i < im->n; i++) {
		uint64_t before = trace_reader_image(r, image_id(im, i - 1))->first_ns;
		uint64_t first = trace_reader_image(r, image_id(im, i))->first_ns;
		size_t last = count_until(runs, nruns, first);
		im->from_ns[i] = last > 0 && runs[last - 1] > before ? runs[last - 1] : first;
	}
	free(runs);
}

/* The image of the pid that ran at `ns`: the last to take over by then
 * (the first, before any did). */
static uint32_t image_at(const struct pid_images *im, uint64_t ns)
{
	size_t took_over = count_until(im->from_ns + 1, im->n - 1, ns);
	return image_id(im, took_over);
}

static void give_chunk(struct trace_reader *r, uint32_t image, const struct trace_kernel_pending *k)
{
	if (k->corrupt)
		return;
	struct trace_thread *t = trace_reader_thread_get(r, image, k->pid, k->tid);
	GROW(t->kernel_windows, t->nkernel_windows, t->cap_kernel_windows);
	t->kernel_windows[t->nkernel_windows++] = (struct trace_window_ref){k->offset, k->seq};
	t->kernel_events += k->events;
	r->kernel_chunks++;
	r->kernel_events += k->events;
	r->kernel_bytes += k->bytes;
}

/* The image of a process only the kernel saw. */
static uint32_t kernel_only_image(struct trace_reader *r, uint32_t pid)
{
	struct trace_image *im = trace_reader_image_get(r, TRACE_KERNEL_ONLY_IMAGE(pid), pid);
	im->kernel_only = 1;
	return im->id;
}

/* Gives the chunks k[0..n) of one pid to their threads. */
static void assign_pid(struct trace_reader *r, const struct image_key *keys, size_t nkeys,
		       struct pid_images *im, const struct trace_kernel_pending *k, size_t n)
{
	collect_images(keys, nkeys, k[0].pid, im);
	if (im->n == 0) {
		uint32_t image = kernel_only_image(r, k[0].pid);
		for (size_t j = 0; j < n; j++)
			give_chunk(r, image, &k[j]);
		return;
	}
	image_boundaries(r, im, k, n);
	for (size_t j = 0; j < n; j++)
		give_chunk(r, image_at(im, k[j].first_ns), &k[j]);
}

/* Gaps in the kernel chunks of (pid, tid), k[0..n) in time order: like a
 * thread's windows', but a run numbered from 0 again (an exec) is none. */
static void check_sequence(struct trace_reader *r, const struct trace_kernel_pending *k, size_t n)
{
	for (size_t w = 1; w < n; w++) {
		uint32_t seq = k[w].seq, before = k[w - 1].seq;
		if (seq == before + 1 || seq == 0)
			continue;
		if (seq > before) {
			r->losses.missing_windows += seq - before - 1;
			trace_reader_note_loss(r, k[w].offset,
					       "thread %u: %u kernel chunks missing", k[w].tid,
					       seq - before - 1);
		} else {
			trace_reader_problem(r, k[w].offset,
					     "thread %u: kernel chunk %u after chunk %u", k[w].tid,
					     seq, before);
		}
	}
}

void trace_kernel_assign(struct trace_reader *r)
{
	struct trace_kernel_pending *k = r->kernel_pending;
	size_t n = r->nkernel_pending;
	struct pid_images im = {0};
	if (n == 0)
		return;
	size_t nkeys;
	struct image_key *keys = sorted_images(r, &nkeys);
	for (size_t i = 0; i < n; i++)
		k[i].first_ns = first_event_ns(r, &k[i]);
	qsort(k, n, sizeof(*k), compare_pending);
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && k[end].pid == k[i].pid;)
			end++;
		assign_pid(r, keys, nkeys, &im, k + i, end - i);
	}
	for (size_t i = 0, end; i < n; i = end) {
		for (end = i + 1; end < n && k[end].pid == k[i].pid && k[end].tid == k[i].tid;)
			end++;
		check_sequence(r, k + i, end - i);
	}
	free(keys);
	free(im.from_ns);
	free(r->kernel_pending);
	r->kernel_pending = NULL;
	r->nkernel_pending = r->cap_kernel_pending = 0;
}
