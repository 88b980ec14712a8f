/*
 * perf_events.c - open the kernel's events for the traced threads with
 * perf_event_open, one ring buffer per CPU, and read the rings.
 *
 * Per CPU and per traced thread: raw_syscalls:sys_enter and sys_exit
 * (tracepoints, every occurrence sampled with tid, time and raw fields), and
 * a dummy software event that carries the side-band records (task: forks
 * and exits, comm: execs, context_switch: off-CPU intervals).  All have
 * inherit set, so the threads and processes the traced ones start are
 * followed, in the kernel: nothing of any other process is ever seen.  The
 * events of one CPU share the ring of its first event (SET_OUTPUT).
 */
#include "perf_events.h"
#include "kernel_rights.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Pages of a CPU's ring: system calls come fast (a loop of getppid()
 * fills 2 MiB in about 15 ms), context switches slowly. */
#define RING_PAGES_SYSCALLS 512
#define RING_PAGES_SCHED 32

/* CALLTRACE_KERNEL_RING_PAGES (a power of 2) overrides them: small rings
 * make losses happen, for the tests of how they are counted. */
static size_t ring_pages(const struct perf_wanted *w)
{
	const char *env = getenv("CALLTRACE_KERNEL_RING_PAGES");
	long n = env ? strtol(env, NULL, 10) : 0;
	if (n > 0 && n <= 4096 && (n & (n - 1)) == 0)
		return (size_t)n;
	return w->syscalls ? RING_PAGES_SYSCALLS : RING_PAGES_SCHED;
}

static long perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group,
			    unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

static void base_attr(struct perf_event_attr *a, const struct perf_wanted *w)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a->sample_id_all = 1;
	a->inherit = 1;
	a->disabled = 1;
	a->enable_on_exec = w->enable_on_exec ? 1 : 0;
	a->watermark = 1;
	a->wakeup_watermark = (uint32_t)(ring_pages(w) * 4096 / 8);
	if (w->monotonic) {
		a->use_clockid = 1;
		a->clockid = CLOCK_MONOTONIC;
	}
}

static void tracepoint_attr(struct perf_event_attr *a, const struct perf_wanted *w, uint32_t id)
{
	base_attr(a, w);
	a->type = PERF_TYPE_TRACEPOINT;
	a->config = id;
	a->sample_period = 1;
	a->sample_type |= PERF_SAMPLE_RAW;
}

static void sideband_attr(struct perf_event_attr *a, const struct perf_wanted *w)
{
	base_attr(a, w);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_DUMMY;
	a->task = 1;
	a->comm = 1;
	a->comm_exec = 1;
	a->context_switch = w->sched ? 1 : 0;
	/* Side-band records only: with no kernel samples asked for, any user
	 * may open it for own processes (perf_event_paranoid 2 allows it). */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int keep_fd(struct perf_session *ps, int fd)
{
	if (ps->nfds == ps->capfds) {
		int cap = ps->capfds ? ps->capfds * 2 : 16;
		int *fds = realloc(ps->fds, (size_t)cap * sizeof(*fds));
		if (!fds)
			return -1;
		ps->fds = fds;
		ps->capfds = cap;
	}
	ps->fds[ps->nfds++] = fd;
	return 0;
}

static int map_ring(struct perf_ring *r, int fd, size_t pages)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	r->data_size = pages * page;
	r->base = mmap(NULL, page + r->data_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return -1;
	}
	r->copy = malloc(65536);
	r->fd = fd;
	r->tail = 0;
	return r->copy ? 0 : -1;
}

/* Opens one event on `cpu` for `tid` into the CPU's ring (the first event
 * opened on a CPU owns it).  0, or -errno. */
static int open_one(struct perf_session *ps, struct perf_event_attr *a, pid_t tid, int cpu,
		    size_t pages)
{
	int fd = (int)perf_event_open(a, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (keep_fd(ps, fd) < 0) {
		close(fd);
		return -ENOMEM;
	}
	struct perf_ring *r = &ps->rings[cpu];
	if (r->fd < 0)
		return map_ring(r, fd, pages) < 0 ? -errno : 0;
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0 ? -errno : 0;
}

/* 0, or -errno with `*what` naming the events refused. */
static int open_for_thread(struct perf_session *ps, const struct perf_wanted *w, pid_t tid, int cpu,
			   const char **what)
{
	struct perf_event_attr a;
	sideband_attr(&a, w);
	*what = w->sched ? "off-CPU intervals" : "system calls";
	int rc = open_one(ps, &a, tid, cpu, ring_pages(w));
	if (rc == 0 && w->syscalls) {
		*what = "system calls";
		tracepoint_attr(&a, w, ps->sys_enter_id);
		rc = open_one(ps, &a, tid, cpu, ring_pages(w));
		if (rc == 0) {
			tracepoint_attr(&a, w, ps->sys_exit_id);
			rc = open_one(ps, &a, tid, cpu, ring_pages(w));
		}
	}
	return rc;
}

int perf_session_open_output(struct perf_session *ps, int cpu)
{
	struct perf_event_attr a;
	struct perf_ring *r = &ps->rings[cpu];
	if (r->fd < 0)
		return -ENODEV;
	base_attr(&a, &ps->wanted);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_BPF_OUTPUT;
	a.sample_period = 1;
	a.sample_type |= PERF_SAMPLE_RAW;
	a.inherit = 0;
	a.disabled = 0;
	a.enable_on_exec = 0;
	int fd = (int)perf_event_open(&a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (keep_fd(ps, fd) < 0) {
		close(fd);
		return -ENOMEM;
	}
	return ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, r->fd) < 0 ? -errno : fd;
}

/* Reads the TSC conversion of the first ring's control page. */
static void read_conversion(struct perf_session *ps)
{
	for (int i = 0; i < ps->nrings; i++) {
		struct perf_event_mmap_page *pg = ps->rings[i].base;
		if (!pg)
			continue;
		uint32_t seq;
		do {
			seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
			ps->have_tsc_conversion = pg->cap_user_time_zero;
			ps->time_zero = pg->time_zero;
			ps->time_mult = pg->time_mult;
			ps->time_shift = pg->time_shift;
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
		} while (__atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE) != seq);
		return;
	}
}

static int possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	return n > 0 ? (int)n : 1;
}

/* Opens the events of `tids` on every CPU that is online (a thread that
 * is gone already is left out).  0, or -1 with `err` set. */
static int open_threads(struct perf_session *ps, const pid_t *tids, int ntids, char *err,
			size_t errlen)
{
	for (int cpu = 0; cpu < ps->nrings; cpu++) {
		struct perf_ring *r = &ps->rings[cpu];
		for (int t = 0; t < ntids && !r->offline; t++) {
			const char *what = "";
			int rc = open_for_thread(ps, &ps->wanted, tids[t], cpu, &what);
			if (rc == -ESRCH)
				continue;
			if (rc == -ENODEV || (rc == -EINVAL && r->fd < 0)) {
				r->offline = 1;
			} else if (rc < 0) {
				kernel_rights_explain(-rc, what, err, errlen);
				return -1;
			}
		}
	}
	for (int cpu = 0; cpu < ps->nrings; cpu++)
		if (ps->rings[cpu].fd >= 0)
			return 0;
	snprintf(err, errlen,
		 "kernel events not recorded: perf_event_open found no CPU to open "
		 "them on");
	return -1;
}

int perf_session_open(struct perf_session *ps, const struct perf_wanted *wanted, const pid_t *tids,
		      int ntids, char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->wanted = *wanted;
	if (wanted->syscalls &&
	    perf_tracepoint_ids(&ps->sys_enter_id, &ps->sys_exit_id, err, errlen) < 0)
		return -1;
	ps->nrings = possible_cpus();
	ps->rings = calloc((size_t)ps->nrings, sizeof(*ps->rings));
	if (!ps->rings) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < ps->nrings; i++)
		ps->rings[i].fd = -1;
	if (open_threads(ps, tids, ntids, err, errlen) < 0) {
		perf_session_close(ps);
		return -1;
	}
	read_conversion(ps);
	return 0;
}

static void ioctl_all(struct perf_session *ps, unsigned long request)
{
	for (int i = 0; i < ps->nfds; i++)
		ioctl(ps->fds[i], request, 0);
}

void perf_session_enable(struct perf_session *ps)
{
	ioctl_all(ps, PERF_EVENT_IOC_ENABLE);
}

void perf_session_disable(struct perf_session *ps)
{
	ioctl_all(ps, PERF_EVENT_IOC_DISABLE);
}

void perf_session_close(struct perf_session *ps)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; ps->rings && i < ps->nrings; i++) {
		if (ps->rings[i].base)
			munmap(ps->rings[i].base, page + ps->rings[i].data_size);
		free(ps->rings[i].copy);
	}
	for (int i = 0; i < ps->nfds; i++)
		close(ps->fds[i]);
	free(ps->rings);
	free(ps->fds);
	memset(ps, 0, sizeof(*ps));
}

size_t perf_ring_drain(struct perf_ring *r, perf_record_fn fn, void *ctx)
{
	if (!r->base)
		return 0;
	struct perf_event_mmap_page *pg = r->base;
	const uint8_t *data = (const uint8_t *)r->base + pg->data_offset;
	size_t size = r->data_size;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->tail;
	size_t n = 0;
	while (tail + sizeof(struct perf_event_header) <= head) {
		const struct perf_event_header *h = (const void *)(data + tail % size);
		size_t at = tail % size;
		uint16_t len = h->size;
		if (at + sizeof(*h) > size) { /* the header itself wraps */
			uint8_t hb[sizeof(*h)];
			for (size_t i = 0; i < sizeof(*h); i++)
				hb[i] = data[(tail + i) % size];
			len = ((struct perf_event_header *)hb)->size;
		}
		if (len < sizeof(*h) || tail + len > head)
			break;
		const void *rec = data + at;
		if (at + len > size) {
			memcpy(r->copy, data + at, size - at);
			memcpy(r->copy + (size - at), data, len - (size - at));
			rec = r->copy;
		}
		fn(ctx, rec);
		tail += len;
		n++;
	}
	r->tail = tail;
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

int perf_tsc_conversion_offered(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	int fd = (int)perf_event_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct perf_event_mmap_page *pg = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	int offered = pg != MAP_FAILED && pg->cap_user_time_zero;
	if (pg != MAP_FAILED)
		munmap(pg, page);
	close(fd);
	return offered;
}

/* As perf's own tools do (tools/perf/util/tsc.c). */
uint64_t perf_time_to_tsc(const struct perf_session *ps, uint64_t ns)
{
	uint64_t t = ns - ps->time_zero;
	uint64_t quot = t / ps->time_mult, rem = t % ps->time_mult;
	return (quot << ps->time_shift) + (rem << ps->time_shift) / ps->time_mult;
}
