/*
 * kernel_collector.c - the collector's thread: poll the per-CPU rings, put
 * their events in time order, write them to each thread's kernel stream.
 *
 * A thread's events can sit in several rings (it moves between CPUs), and
 * a ring read now may still miss an event stamped just before another ring
 * was read.  So events wait HOLD_MS in a queue per ring (each in time
 * order, as its CPU wrote them) and are applied merged by time; at the
 * stop everything is applied.  The streams are
 * written into the trace every FLUSH_MS: a program killed with kill -9
 * loses nothing of what was written.
 *
 * The BPF program's copies of a system call's arguments (syscall_bpf.h)
 * come in the ring in place of the tracepoint's sample of the call or the
 * return they belong to, with what the sample says: they are that enter
 * or exit.
 */
#include "kernel_collector.h"
#include "event_queue.h"
#include "kernel_events.h"
#include "kernel_threads.h"
#include "perf_events.h"
#include "syscall_bpf.h"
#include "../format/trace_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define HOLD_MS 20
#define FLUSH_MS 100
#define POLL_MS 50

struct kernel_collector {
	struct trace_session *session;
	struct perf_session perf;
	struct syscall_bpf *bpf; /* NULL: arguments as registers */
	struct kernel_clock clock;
	struct kernel_threads threads;
	struct event_queue *queues;  /* one per ring */
	struct event_queue *filling; /* the ring being read */
	uint64_t hold_ticks, flush_ticks;
	int stop_fd;
	struct pollfd *fds; /* poll_set */
	int nfds;
	pthread_t thread;
};

static uint64_t now_tick(const struct kernel_collector *kc)
{
	return kc->clock.tsc ? trace_clock_tsc() : trace_clock_monotonic_ns();
}

static void take_record(void *ctx, const void *record)
{
	struct kernel_collector *kc = ctx;
	struct event_queue *q = kc->filling;
	struct kernel_event *ev = event_queue_slot(q);
	if (!ev) {
		kc->threads.lost++;
		return;
	}
	if (perf_decode(&kc->clock, &kc->perf, record, ev) && event_queue_keep(q) < 0)
		kc->threads.lost++;
}

/* Applies the waiting events stamped up to `upto`, merged by time. */
static void apply_until(struct kernel_collector *kc, uint64_t upto)
{
	int nq = kc->perf.nrings;
	for (;;) {
		struct event_queue *first = NULL;
		uint64_t first_tick = 0;
		for (int i = 0; i < nq; i++) {
			struct event_queue *q = &kc->queues[i];
			if (q->head < q->n && (!first || q->ev[q->head].tick < first_tick)) {
				first = q;
				first_tick = q->ev[q->head].tick;
			}
		}
		if (!first || first_tick > upto)
			break;
		kernel_threads_apply(&kc->threads, event_queue_first(first));
		event_queue_pop(first);
	}
}

static void drain_all(struct kernel_collector *kc)
{
	for (int i = 0; i < kc->perf.nrings; i++) {
		kc->filling = &kc->queues[i];
		perf_ring_drain(&kc->perf.rings[i], take_record, kc);
	}
}

/* The rings' descriptors, then the stop descriptor, for poll. */
static struct pollfd *poll_set(const struct kernel_collector *kc, int *n)
{
	struct pollfd *fds = calloc((size_t)kc->perf.nrings + 1, sizeof(*fds));
	*n = 0;
	if (!fds)
		return NULL;
	for (int i = 0; i < kc->perf.nrings; i++)
		if (kc->perf.rings[i].fd >= 0)
			fds[(*n)++] = (struct pollfd){.fd = kc->perf.rings[i].fd, .events = POLLIN};
	fds[(*n)++] = (struct pollfd){.fd = kc->stop_fd, .events = POLLIN};
	return fds;
}

/* Waits for data or the stop; 1 when it is time to stop.  A ring whose
 * event's task has exited says so for ever (POLLHUP): it is read each
 * round still, no longer waited on. */
static int wait_round(struct pollfd *fds, int n)
{
	if (poll(fds, (nfds_t)n, POLL_MS) <= 0)
		return 0;
	for (int i = 0; i < n - 1; i++)
		if (fds[i].revents & (POLLHUP | POLLERR))
			fds[i].fd = -1;
	return (fds[n - 1].revents & POLLIN) != 0;
}

static void *collect(void *arg)
{
	struct kernel_collector *kc = arg;
	uint64_t last_flush = now_tick(kc);
	while (!wait_round(kc->fds, kc->nfds)) {
		drain_all(kc);
		uint64_t now = now_tick(kc);
		apply_until(kc, now - kc->hold_ticks);
		if (now - last_flush >= kc->flush_ticks) {
			kernel_threads_flush(&kc->threads);
			last_flush = now;
		}
	}
	drain_all(kc);
	apply_until(kc, UINT64_MAX);
	return NULL;
}

static int set_clock(struct kernel_collector *kc, char *err, size_t errlen)
{
	kc->clock.tsc = kc->session->header->clock == TRACE_CLOCK_TSC;
	kc->clock.perf = &kc->perf;
	if (kc->clock.tsc && !kc->perf.have_tsc_conversion) {
		snprintf(err, errlen,
			 "kernel events not recorded: the kernel gives no conversion of its times "
			 "to the TSC here (CALLTRACE_CLOCK=monotonic records on CLOCK_MONOTONIC, "
			 "which it can)");
		return -1;
	}
	uint64_t hz = kc->clock.tsc ? kc->session->header->tick_hz : 1000000000u;
	kc->hold_ticks = hz / 1000 * HOLD_MS;
	kc->flush_ticks = hz / 1000 * FLUSH_MS;
	return 0;
}

int kernel_collector_pick_clock(void)
{
	if (trace_clock_init() != TRACE_CLOCK_TSC || perf_tsc_conversion_offered())
		return 0;
	setenv("CALLTRACE_CLOCK", "monotonic", 1);
	trace_clock_init();
	return 1;
}

struct kernel_collector *kernel_collector_start(struct trace_session *s,
						const struct kernel_collect_options *o,
						const pid_t *tids, int ntids, char *err,
						size_t errlen)
{
	struct kernel_collector *kc = calloc(1, sizeof(*kc));
	err[0] = 0;
	if (!kc) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	kc->session = s;
	struct perf_wanted w = {.syscalls = o->syscalls,
				.sched = o->sched,
				.monotonic = s->header->clock != TRACE_CLOCK_TSC,
				.enable_on_exec = o->from_exec};
	if (perf_session_open(&kc->perf, &w, tids, ntids, err, errlen) < 0) {
		/* Off-CPU intervals need fewer rights: keep them. */
		char unused[256];
		w.syscalls = 0;
		if (!o->sched ||
		    perf_session_open(&kc->perf, &w, tids, ntids, unused, sizeof(unused)) < 0) {
			free(kc);
			return NULL;
		}
	}
	kc->stop_fd = eventfd(0, EFD_CLOEXEC);
	kernel_threads_init(&kc->threads, s);
	kc->queues = calloc((size_t)kc->perf.nrings, sizeof(*kc->queues));
	kc->fds = kc->stop_fd < 0 ? NULL : poll_set(kc, &kc->nfds);
	int failed = set_clock(kc, err, errlen) < 0;
	if (!failed &&
	    (!kc->fds || !kc->queues || pthread_create(&kc->thread, NULL, collect, kc) != 0)) {
		snprintf(err, errlen, "kernel events not recorded: cannot start their reader");
		failed = 1;
	}
	if (failed) {
		if (kc->stop_fd >= 0)
			close(kc->stop_fd);
		perf_session_close(&kc->perf);
		free(kc->queues);
		free(kc->fds);
		free(kc);
		return NULL;
	}
	if (w.syscalls) {
		char why[256];
		kc->bpf = syscall_bpf_start(&kc->perf, s->header->machine, tids, ntids,
					    o->from_exec, why, sizeof(why));
		if (!kc->bpf && o->note)
			snprintf(o->note, o->note_len,
				 "kernel: system call arguments shown as pointers: %s", why);
	}
	if (!o->from_exec)
		perf_session_enable(&kc->perf);
	return kc;
}

/* Lost events have no thread (perf's record of them says none): they are
 * the session's, counted in the trace's header. */
static void write_losses(struct kernel_collector *kc)
{
	if (kc->threads.lost)
		__atomic_store_n(&kc->session->header->kernel_lost_events, kc->threads.lost,
				 __ATOMIC_RELAXED);
}

void kernel_collector_stop(struct kernel_collector *kc, char *summary, size_t len)
{
	if (!kc)
		return;
	perf_session_disable(&kc->perf);
	syscall_bpf_stop(kc->bpf);
	uint64_t one = 1;
	if (write(kc->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(kc->thread, NULL);
	kernel_threads_destroy(&kc->threads);
	write_losses(kc);
	if (summary) {
		char lost[64] = "";
		if (kc->threads.lost)
			snprintf(lost, sizeof(lost),
				 ", %" PRIu64 " kernel events lost (ring buffers full)",
				 kc->threads.lost);
		snprintf(summary, len,
			 "kernel: %" PRIu64 " system calls, %" PRIu64 " off-CPU intervals%s",
			 kc->threads.syscalls, kc->threads.offcpu, lost);
	}
	close(kc->stop_fd);
	for (int i = 0; i < kc->perf.nrings; i++)
		event_queue_free(&kc->queues[i]);
	free(kc->queues);
	free(kc->fds);
	perf_session_close(&kc->perf);
	free(kc);
}
