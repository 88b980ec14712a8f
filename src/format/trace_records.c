/*
 * trace_records.c - the index's images and threads, and the records that
 * describe them: process, module, thread and crash chunks (every length
 * checked against the chunk), and event windows put in their thread's list.
 */
#include "trace_reader_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *trace_reader_copy_string(const uint8_t *p, size_t len)
{
	char *s = malloc(len + 1);
	if (!s)
		abort();
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* NUL-separated arguments joined with spaces. */
char *trace_reader_join_arguments(const uint8_t *p, size_t len)
{
	while (len > 0 && p[len - 1] == '\0')
		len--;
	char *s = trace_reader_copy_string(p, len);
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

/* ---- images, threads ------------------------------------------------------ */

static uint64_t image_key_hash(uint32_t id)
{
	return (uint64_t)id * 0x9e3779b97f4a7c15ull >> 17;
}

static void image_hash_rebuild(struct trace_reader *r)
{
	free(r->image_hash);
	r->image_hash_size = r->image_hash_size ? r->image_hash_size * 2 : 64;
	r->image_hash = calloc(r->image_hash_size, sizeof(uint32_t));
	if (!r->image_hash)
		abort();
	for (size_t i = 0; i < r->nimages; i++) {
		size_t h = image_key_hash(r->images[i].id);
		while (r->image_hash[h & (r->image_hash_size - 1)])
			h++;
		r->image_hash[h & (r->image_hash_size - 1)] = (uint32_t)i + 1;
	}
}

/* The hash slot of image `id`: holds its index + 1, or 0 when it is new. */
static uint32_t *image_slot(const struct trace_reader *r, uint32_t id)
{
	size_t mask = r->image_hash_size - 1;
	for (size_t h = image_key_hash(id);; h++) {
		uint32_t *slot = &r->image_hash[h & mask];
		if (*slot == 0 || r->images[*slot - 1].id == id)
			return slot;
	}
}

struct trace_image *trace_reader_image_get(struct trace_reader *r, uint32_t id, uint32_t pid)
{
	if (r->nimages * 2 >= r->image_hash_size)
		image_hash_rebuild(r);
	uint32_t *slot = image_slot(r, id);
	if (*slot)
		return &r->images[*slot - 1];
	GROW(r->images, r->nimages, r->cap_images);
	struct trace_image *im = &r->images[r->nimages++];
	*slot = (uint32_t)r->nimages;
	memset(im, 0, sizeof(*im));
	im->id = id;
	im->pid = pid;
	im->first_ns = UINT64_MAX;
	im->exe = trace_reader_copy_string((const uint8_t *)"", 0);
	im->command = trace_reader_copy_string((const uint8_t *)"", 0);
	return im;
}

size_t trace_reader_processes(const struct trace_reader *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nimages; i++)
		n += r->images[i].how != PROCESS_EXEC;
	return n;
}

const struct trace_image *trace_reader_image(const struct trace_reader *r, uint32_t id)
{
	if (r->nimages == 0)
		return NULL;
	uint32_t slot = *image_slot(r, id);
	return slot ? &r->images[slot - 1] : NULL;
}

static uint64_t thread_key_hash(uint32_t image, uint32_t tid)
{
	return ((uint64_t)image * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)tid * 0xc2b2ae3d27d4eb4full);
}

static void thread_hash_rebuild(struct trace_reader *r)
{
	free(r->thread_hash);
	r->thread_hash_size = r->thread_hash_size ? r->thread_hash_size * 2 : 256;
	r->thread_hash = calloc(r->thread_hash_size, sizeof(uint32_t));
	if (!r->thread_hash)
		abort();
	for (size_t i = 0; i < r->nthreads; i++) {
		size_t h = thread_key_hash(r->threads[i].image, r->threads[i].tid);
		while (r->thread_hash[h & (r->thread_hash_size - 1)])
			h++;
		r->thread_hash[h & (r->thread_hash_size - 1)] = (uint32_t)i + 1;
	}
}

struct trace_thread *trace_reader_thread_get(struct trace_reader *r, uint32_t image, uint32_t pid,
					     uint32_t tid)
{
	if (r->nthreads * 2 >= r->thread_hash_size)
		thread_hash_rebuild(r);
	size_t mask = r->thread_hash_size - 1;
	for (size_t h = thread_key_hash(image, tid);; h++) {
		uint32_t slot = r->thread_hash[h & mask];
		if (slot == 0) {
			GROW(r->threads, r->nthreads, r->cap_threads);
			struct trace_thread *t = &r->threads[r->nthreads];
			memset(t, 0, sizeof(*t));
			t->image = image;
			t->pid = pid;
			t->tid = tid;
			t->index = (uint32_t)r->nthreads++;
			r->thread_hash[h & mask] = t->index + 1;
			trace_reader_image_get(r, image, pid);
			return t;
		}
		struct trace_thread *t = &r->threads[slot - 1];
		if (t->image == image && t->tid == tid)
			return t;
	}
}

/* ---- chunk payloads ------------------------------------------------------- */

uint64_t trace_chunk_time_ns(const struct trace_reader *r, const struct trace_chunk *c)
{
	return c->clock_ns > r->header.start_mono_ns ? c->clock_ns - r->header.start_mono_ns : 0;
}

/* The usage an exit record may carry after its strings. */
static void read_usage(struct trace_image *im, const uint8_t *p, size_t len)
{
	if (len < sizeof(im->usage))
		return;
	memcpy(&im->usage, p, sizeof(im->usage));
	im->has_usage = 1;
}

/* The in-process engine's counts of the image's functions; a record too
 * short for them is one of a later writer's own kind, left alone. */
static void read_functions(struct trace_reader *r, const struct trace_chunk *c, const uint8_t *p,
			   size_t len)
{
	struct trace_image *im = trace_reader_image_get(r, c->image, c->pid);
	if (len < sizeof(im->functions))
		return;
	memcpy(&im->functions, p, sizeof(im->functions));
	im->has_functions = 1;
}

void trace_read_process(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
			const uint8_t *p, size_t len)
{
	struct trace_process_record rec;
	if (len < sizeof(rec))
		goto bad;
	memcpy(&rec, p, sizeof(rec));
	if ((uint64_t)rec.exe_len + rec.command_len > len - sizeof(rec))
		goto bad;
	size_t strings_end = sizeof(rec) + rec.exe_len + rec.command_len;
	if (rec.event == PROCESS_FUNCTIONS) {
		read_functions(r, c, p + strings_end, len - strings_end);
		return;
	}
	if (rec.event < PROCESS_START || rec.event > PROCESS_EXIT)
		return; /* written by a later calltrace: not for this reader */
	if (rec.event == PROCESS_EXIT) {
		/* Image 0: written by the recorder, which knows only the pid. */
		struct trace_image *im = (struct trace_image *)trace_reader_image(r, c->image);
		for (size_t i = r->nimages; !c->image && i-- > 0;)
			if (r->images[i].pid == c->pid) {
				im = &r->images[i];
				break;
			}
		if (im) {
			im->has_exit = 1;
			im->exit_status = rec.status;
			read_usage(im, p + strings_end, len - strings_end);
		}
		return;
	}
	struct trace_image *im = trace_reader_image_get(r, c->image, c->pid);
	const uint8_t *strings = p + sizeof(rec);
	im->pid = c->pid;
	im->ppid = rec.ppid;
	im->parent_image = rec.parent_image;
	im->how = rec.event;
	im->start_ns = trace_chunk_time_ns(r, c);
	free(im->exe);
	free(im->command);
	im->exe = trace_reader_copy_string(strings, rec.exe_len);
	im->command = trace_reader_join_arguments(strings + rec.exe_len, rec.command_len);
	return;
bad:
	trace_reader_problem(r, off, "corrupt process record");
}

void trace_read_module(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		       const uint8_t *p, size_t len)
{
	struct trace_module_record rec;
	if (len < sizeof(rec))
		goto bad;
	memcpy(&rec, p, sizeof(rec));
	if ((uint64_t)rec.build_id_len + rec.path_len > len - sizeof(rec) || rec.low > rec.high)
		goto bad;
	struct trace_image *im = trace_reader_image_get(r, c->image, c->pid);
	uint64_t now = trace_chunk_time_ns(r, c);
	if (rec.event == MODULE_UNLOAD) {
		for (size_t i = 0; i < im->nmodules; i++) {
			struct trace_module *m = &im->modules[i];
			if (m->low == rec.low && m->load_bias == rec.load_bias &&
			    m->unload_ns == UINT64_MAX)
				m->unload_ns = now;
		}
		return;
	}
	GROW(im->modules, im->nmodules, im->cap_modules);
	struct trace_module *m = &im->modules[im->nmodules++];
	memset(m, 0, sizeof(*m));
	m->build_id = (uint8_t *)trace_reader_copy_string(p + sizeof(rec), rec.build_id_len);
	m->build_id_len = rec.build_id_len;
	m->path = trace_reader_copy_string(p + sizeof(rec) + rec.build_id_len, rec.path_len);
	m->load_bias = rec.load_bias;
	m->low = rec.low;
	m->high = rec.high;
	m->load_ns = now;
	m->unload_ns = UINT64_MAX;
	return;
bad:
	trace_reader_problem(r, off, "corrupt module record");
}

void trace_read_thread(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		       const uint8_t *p, size_t len)
{
	struct trace_thread_record rec;
	if (len < sizeof(rec) || (memcpy(&rec, p, sizeof(rec)), rec.name_len > len - sizeof(rec))) {
		trace_reader_problem(r, off, "corrupt thread record");
		return;
	}
	struct trace_thread *t = trace_reader_thread_get(r, c->image, c->pid, c->tid);
	if (rec.event == THREAD_LOST_CALLS) {
		char *count = trace_reader_copy_string(p + sizeof(rec), rec.name_len);
		char *end;
		unsigned long long n = strtoull(count, &end, 10);
		if (*count && !*end) {
			r->losses.lost_calls += n < UINT64_MAX - r->losses.lost_calls
						    ? n
						    : UINT64_MAX - r->losses.lost_calls;
			trace_reader_note_loss(
			    r, off, "thread %u: %llu calls could not be recorded", c->tid, n);
		} else {
			trace_reader_problem(r, off, "corrupt thread record");
		}
		free(count);
		return;
	}
	if (rec.name_len) { /* START, NAME, END: the latest name wins */
		free(t->name);
		t->name = trace_reader_copy_string(p + sizeof(rec), rec.name_len);
	}
}

void trace_read_crash(struct trace_reader *r, uint64_t off, const struct trace_chunk *c,
		      const uint8_t *p, size_t len)
{
	struct trace_crash_record rec;
	if (len < sizeof(rec) ||
	    (memcpy(&rec, p, sizeof(rec)), rec.frames > (len - sizeof(rec)) / sizeof(uint64_t))) {
		trace_reader_problem(r, off, "corrupt crash record");
		return;
	}
	GROW(r->crashes, r->ncrashes, r->cap_crashes);
	struct trace_crash *k = &r->crashes[r->ncrashes++];
	k->image = c->image;
	k->pid = c->pid;
	k->tid = c->tid;
	k->signal = rec.signal;
	k->code = rec.code;
	k->fault_address = rec.fault_address;
	k->time_ns = trace_chunk_time_ns(r, c);
	k->nframes = rec.frames;
	k->flags = rec.flags;
	k->frames = malloc(rec.frames * sizeof(uint64_t) + 1);
	memcpy(k->frames, p + sizeof(rec), rec.frames * sizeof(uint64_t));
}

void trace_index_window(struct trace_reader *r, uint64_t off, const struct trace_chunk *c)
{
	struct trace_thread *t = trace_reader_thread_get(r, c->image, c->pid, c->tid);
	GROW(t->windows, t->nwindows, t->cap_windows);
	t->windows[t->nwindows++] = (struct trace_window_ref){off, c->seq};
}

void trace_image_seen(struct trace_reader *r, const struct trace_chunk *c)
{
	if (c->image == 0 || c->kind == CHUNK_SKIP || c->kind == CHUNK_KERNEL)
		return;
	struct trace_image *im = (struct trace_image *)trace_reader_image(r, c->image);
	uint64_t ns = trace_chunk_time_ns(r, c);
	if (im && ns < im->first_ns)
		im->first_ns = ns;
}
