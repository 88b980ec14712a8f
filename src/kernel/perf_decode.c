/*
 * perf_decode.c - read perf's records (samples of the raw_syscalls
 * tracepoints, context switches, comm, exit, lost) into kernel events with
 * times on the trace's clock.
 *
 * Every event of the session has sample_type TID | TIME and sample_id_all,
 * so a non-sample record ends with { u32 pid, tid; u64 time }.  A sample
 * is { u32 pid, tid; u64 time; u32 size; raw[size] }, the raw fields being
 * the tracepoint's (see its format in tracefs): common_type (u16) at 0, id
 * (long) at 8, then args[6] (sys_enter) or ret (sys_exit) at 16.  The
 * BPF program's records (syscall_capture.h), written in place of a
 * tracepoint's sample, are samples too, their raw data beginning with
 * CAPTURE_MAGIC where a tracepoint's has its id: the same enter or exit,
 * with the copies of its arguments.
 */
#include "kernel_events.h"
#include "perf_events.h"
#include "syscall_capture.h"

#include <linux/perf_event.h>
#include <string.h>

struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

static uint64_t to_tick(const struct kernel_clock *c, uint64_t perf_ns)
{
	return c->tsc ? perf_time_to_tsc(c->perf, perf_ns) : perf_ns;
}

static void trailer(const struct perf_event_header *h, struct sample_id *id)
{
	memcpy(id, (const uint8_t *)h + h->size - sizeof(*id), sizeof(*id));
}

static int decode_sample(const struct kernel_clock *c, const struct perf_session *ps,
			 const struct perf_event_header *h, struct kernel_event *ev)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct sample_id id;
	uint32_t raw_size;
	if (h->size < sizeof(*h) + sizeof(id) + 4)
		return 0;
	memcpy(&id, p, sizeof(id));
	memcpy(&raw_size, p + sizeof(id), 4);
	const uint8_t *raw = p + sizeof(id) + 4;
	if (raw_size < 24 || sizeof(*h) + sizeof(id) + 4 + raw_size > h->size)
		return 0;
	uint16_t type;
	memcpy(&type, raw, 2);
	if (type == CAPTURE_MAGIC) {
		struct capture_head head;
		memcpy(&head, raw, 8);
		uint32_t body = CAPTURE_BODY(head.kind);
		if (raw_size < body)
			return 0;
		ev->kind = head.kind == CAPTURE_ENTER ? KEV_SYS_ENTER : KEV_SYS_EXIT;
		ev->nr = head.nr;
		memcpy(ev->args, raw + 8, body - 8);
		ev->capture = (uint8_t *)raw + body;
		ev->capture_len = raw_size - body;
	} else if (type == ps->sys_enter_id && raw_size >= 16 + 48) {
		memcpy(&ev->nr, raw + 8, 8);
		ev->kind = KEV_SYS_ENTER;
		memcpy(ev->args, raw + 16, 48);
	} else if (type == ps->sys_exit_id) {
		memcpy(&ev->nr, raw + 8, 8);
		ev->kind = KEV_SYS_EXIT;
		memcpy(ev->args, raw + 16, 8);
	} else {
		return 0;
	}
	ev->pid = id.pid;
	ev->tid = id.tid;
	ev->tick = to_tick(c, id.time);
	return 1;
}

/* FORK and EXIT: { u32 pid, ppid, tid, ptid; u64 time } then the id. */
static int decode_exit(const struct kernel_clock *c, const struct perf_event_header *h,
		       struct kernel_event *ev)
{
	uint32_t f[4];
	uint64_t time;
	if (h->size < sizeof(*h) + 24)
		return 0;
	memcpy(f, h + 1, sizeof(f));
	memcpy(&time, (const uint8_t *)(h + 1) + 16, 8);
	ev->kind = KEV_THREAD_EXIT;
	ev->pid = f[0];
	ev->tid = f[2];
	ev->tick = to_tick(c, time);
	return 1;
}

int perf_decode(const struct kernel_clock *c, const struct perf_session *ps, const void *record,
		struct kernel_event *ev)
{
	const struct perf_event_header *h = record;
	struct sample_id id;
	memset(ev, 0, sizeof(*ev));
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		return decode_sample(c, ps, h, ev);
	case PERF_RECORD_EXIT:
		return decode_exit(c, h, ev);
	case PERF_RECORD_SWITCH:
		if (h->size < sizeof(*h) + sizeof(id))
			return 0;
		trailer(h, &id);
		ev->kind = h->misc & PERF_RECORD_MISC_SWITCH_OUT ? KEV_SWITCH_OUT : KEV_SWITCH_IN;
		ev->preempted = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
		break;
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC) ||
		    h->size < sizeof(*h) + 8 + sizeof(id))
			return 0;
		trailer(h, &id);
		ev->kind = KEV_EXEC;
		break;
	case PERF_RECORD_LOST: {
		uint64_t lost[2];
		if (h->size < sizeof(*h) + sizeof(lost) + sizeof(id))
			return 0;
		memcpy(lost, h + 1, sizeof(lost));
		trailer(h, &id);
		ev->kind = KEV_LOST;
		ev->args[0] = lost[1];
		break;
	}
	default:
		return 0;
	}
	ev->pid = id.pid;
	ev->tid = id.tid;
	ev->tick = to_tick(c, id.time);
	return 1;
}
