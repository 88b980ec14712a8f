/*
 * perf_events.h - the kernel's events for one session, through
 * perf_event_open: the raw_syscalls tracepoints and the scheduler's
 * context switches of the traced processes, one ring buffer per CPU.
 *
 * This layer opens the events, maps the rings and hands out their records
 * raw; perf_decode.c reads them and kernel_collector.c writes the trace.
 */
#ifndef CALLTRACE_PERF_EVENTS_H
#define CALLTRACE_PERF_EVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What to open. */
struct perf_wanted {
	int syscalls; /* raw_syscalls:sys_enter and sys_exit */
	int sched;    /* context switches (off-CPU intervals) */
	/* Times on CLOCK_MONOTONIC (use_clockid) instead of the perf clock,
	 * when the trace's clock is CLOCK_MONOTONIC. */
	int monotonic;
	/* Enabled when the process execs (record: it waits to exec until the
	 * events are open), else at once (attach). */
	int enable_on_exec;
};

/* One CPU's ring buffer. */
struct perf_ring {
	int fd;	    /* the event whose buffer it is */
	void *base; /* the control page, then the data */
	size_t data_size;
	uint64_t tail; /* read so far */
	uint8_t *copy; /* a record that wraps around, made whole */
	int offline;   /* its CPU takes no events */
};

struct perf_session {
	struct perf_wanted wanted;
	struct perf_ring *rings; /* one per CPU */
	int nrings;
	int *fds; /* every event opened (ring owners included) */
	int nfds, capfds;
	uint32_t sys_enter_id, sys_exit_id; /* tracepoint ids */
	/* perf time -> TSC (cap_user_time_zero), from the first ring's page. */
	int have_tsc_conversion;
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
};

/* Reads the tracepoint ids of raw_syscalls (from tracefs, mounted or not).
 * 0, or -1 with a message in `err`. */
int perf_tracepoint_ids(uint32_t *enter, uint32_t *exit, char *err, size_t errlen);

/* Opens the events of `wanted` for the threads `tids` (each with inherit:
 * what they start is followed), one ring per CPU.  0, or -1 with a
 * one-line message in `err` saying what is missing. */
int perf_session_open(struct perf_session *ps, const struct perf_wanted *wanted, const pid_t *tids,
		      int ntids, char *err, size_t errlen);
/* Opens the event a BPF program writes its records into on `cpu`
 * (bpf_perf_event_output), its records going to the CPU's ring, on the
 * ring's clock.  Its descriptor, or -errno (-ENODEV: the CPU has no
 * ring). */
int perf_session_open_output(struct perf_session *ps, int cpu);
/* Enables events opened without enable_on_exec (attach). */
void perf_session_enable(struct perf_session *ps);
void perf_session_disable(struct perf_session *ps);
void perf_session_close(struct perf_session *ps);

/* Calls `fn` for each record of ring `r` written since the last call (a
 * record is a struct perf_event_header and its body), then frees their
 * space.  Returns the number of records. */
typedef void (*perf_record_fn)(void *ctx, const void *record);
size_t perf_ring_drain(struct perf_ring *r, perf_record_fn fn, void *ctx);

/* Whether the kernel converts its perf times to the TSC here
 * (cap_user_time_zero: no on a kernel whose sched_clock is not the TSC, as
 * under some hypervisors). */
int perf_tsc_conversion_offered(void);

/* perf time (ns) to TSC ticks with the kernel's own conversion. */
uint64_t perf_time_to_tsc(const struct perf_session *ps, uint64_t ns);

#endif
