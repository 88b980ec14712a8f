/*
 * syscall_args.bpf.c - the BPF program that copies the traced threads'
 * system call arguments at the call and at the return (strings, buffers,
 * structs: syscall_capture.h), for the kernel collector.
 *
 * Attached to raw_syscalls:sys_enter and sys_exit; filtered to the
 * session's threads by the map `traced` (the collector puts the first
 * ones in; a traced thread's children are added when it forks, before
 * they run; a thread is removed when it exits).  Each record goes to the
 * CPU's perf ring (`out`), right before the tracepoint's own sample, on
 * the same clock.  The programs always return 1: a 0 would take the
 * tracepoint's samples away from every perf user of it.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "../syscall_capture.h"

char LICENSE[] SEC("license") = "GPL";

#define SCRATCH 4096
#define OFF_MASK 2047 /* an item starts below: it fits the scratch */

struct task_struct {
	int pid;
} __attribute__((preserve_access_index));

struct sys_enter_args {
	unsigned long long common;
	long id;
	unsigned long args[6];
};

struct sys_exit_args {
	unsigned long long common;
	long id;
	long ret;
};

struct pending {
	unsigned int nr;
	unsigned int faulted; /* bit per argument whose copy at the call failed */
	unsigned long args[6];
};

struct scratch {
	unsigned char buf[SCRATCH];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CAPTURE_NR_MAX);
	__type(key, __u32);
	__type(value, struct capture_plan);
} plans SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct pending);
} pendings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratches SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} out SEC(".maps");

/* off & OFF_MASK, done where it is written: the compiler would leave the
 * mask out where it sees it is true, and the verifier not see it. */
static __always_inline __u32 bound(__u32 off)
{
	asm volatile("%0 &= 2047" : "+r"(off));
	return off;
}

static __always_inline struct capture_item *item_at(unsigned char *buf, __u32 off, int arg,
						    int kind)
{
	struct capture_item *it = (struct capture_item *)(buf + bound(off));
	it->arg = (unsigned char)arg;
	it->kind = (unsigned char)kind;
	it->status = CAPTURED;
	it->pad = 0;
	it->len = 0;
	return it;
}

static __always_inline __u32 put_string(unsigned char *buf, __u32 off, int arg, int kind,
					const void *ptr, __u32 max)
{
	struct capture_item *it = item_at(buf, off, arg, kind);
	off = bound(off);
	long n =
	    bpf_probe_read_user_str(buf + off + sizeof(*it), max & (CAPTURE_PATH_MAX * 2 - 1), ptr);
	if (n <= 0) {
		it->status = CAPTURE_FAULT;
		return off + sizeof(*it);
	}
	if ((__u32)n == max)
		it->status = CAPTURED_CUT;
	it->len = (unsigned short)(n - 1); /* the NUL left out */
	return off + sizeof(*it) + (__u32)it->len;
}

static __always_inline __u32 put_bytes(unsigned char *buf, __u32 off, int arg, int kind,
				       const void *ptr, __u64 len, __u32 max)
{
	struct capture_item *it = item_at(buf, off, arg, kind);
	off = bound(off);
	__u32 n = len > max ? max : (__u32)len;
	if (len > max)
		it->status = CAPTURED_CUT;
	n &= 255;
	if (n && bpf_probe_read_user(buf + off + sizeof(*it), n, ptr) < 0) {
		it->status = CAPTURE_FAULT;
		return off + sizeof(*it);
	}
	it->len = (unsigned short)n;
	return off + sizeof(*it) + n;
}

static __always_inline __u32 put_argv(unsigned char *buf, __u32 off, int arg, const void *ptr)
{
	const void *const *argv = ptr;
	for (int i = 0; i < CAPTURE_ARGV_MAX; i++) {
		const void *s = 0;
		if (bpf_probe_read_user(&s, sizeof(s), argv + i) < 0) {
			struct capture_item *it = item_at(buf, off, arg, CAP_ARGV);
			it->status = CAPTURE_FAULT;
			return bound(off) + sizeof(*it);
		}
		if (!s)
			return off;
		off = put_string(buf, off, arg, CAP_ARGV, s, CAPTURE_ELEMENT_MAX);
	}
	const void *s = 0;
	if (bpf_probe_read_user(&s, sizeof(s), argv + CAPTURE_ARGV_MAX) == 0 && s) {
		struct capture_item *it = item_at(buf, off, arg, CAP_ARGV);
		it->status = CAPTURED_MORE;
		off = bound(off) + sizeof(*it);
	}
	return off;
}

/* Copies argument `what & 7` as `what >> 8` (its kind) says into the
 * record at `off` (BPF functions take 5 arguments at most); `len`
 * is the length its plan names (an argument's value, a return, or a
 * size).  The record's new end.  A global function: the verifier checks
 * it once, not once per argument of each caller. */
__noinline __u32 capture(struct scratch *s, __u32 off, int what, unsigned long ptr, __u64 len)
{
	int arg = what & 7, kind = what >> 8;
	if (!s || !ptr || off > CAPTURE_RECORD_MAX)
		return off;
	unsigned char *buf = s->buf;
	switch (kind) {
	case CAP_PATH:
		return put_string(buf, off, arg, kind, (const void *)ptr, CAPTURE_PATH_MAX);
	case CAP_BUF:
		return put_bytes(buf, off, arg, kind, (const void *)ptr, len, CAPTURE_BUF_MAX);
	case CAP_SOCKADDR:
	case CAP_FIXED:
		return put_bytes(buf, off, arg, kind, (const void *)ptr, len, CAPTURE_STRUCT_MAX);
	case CAP_ARGV:
		return put_argv(buf, off, arg, (const void *)ptr);
	}
	return off;
}

static __always_inline void send(void *ctx, unsigned char *buf, __u32 off, int kind, long nr)
{
	if (off <= sizeof(struct capture_head))
		return;
	struct capture_head *h = (struct capture_head *)buf;
	h->magic = CAPTURE_MAGIC;
	h->kind = (unsigned short)kind;
	h->nr = (unsigned int)nr;
	bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, buf, off & (SCRATCH - 1));
}

/* Argument `la`, or the size `la` itself (6 and more); no variable
 * index: the verifier takes none into the stack or the context. */
static __always_inline unsigned long length_of(const unsigned long *args, unsigned char la)
{
	if (la == 0)
		return args[0];
	if (la == 1)
		return args[1];
	if (la == 2)
		return args[2];
	if (la == 3)
		return args[3];
	if (la == 4)
		return args[4];
	if (la == 5)
		return args[5];
	return la;
}

static __always_inline struct scratch *scratch_buf(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&scratches, &zero);
}

SEC("tracepoint/raw_syscalls/sys_enter")
int on_enter(struct sys_enter_args *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 nr = (__u32)ctx->id;
	/* Most calls of most processes end at the first look-up: an array's. */
	struct capture_plan *plan = bpf_map_lookup_elem(&plans, &nr);
	if (!plan || !plan->any || !bpf_map_lookup_elem(&traced, &tid))
		return 1;
	struct scratch *sc = scratch_buf();
	if (!sc)
		return 1;
	unsigned char *buf = sc->buf;
	struct pending p = {.nr = nr};
	__u32 off = sizeof(struct capture_head);
	for (int i = 0; i < 6; i++)
		p.args[i] = ctx->args[i];
	for (int i = 0; i < 6; i++) {
		int kind = plan->enter[i];
		__u8 la = plan->len_arg[i];
		if (!kind)
			continue;
		__u32 before = off;
		off = capture(sc, off, i | kind << 8, p.args[i], length_of(p.args, la));
		if (off > before && buf[(before & OFF_MASK) + 2] == CAPTURE_FAULT)
			p.faulted |= 1u << i;
	}
	send(ctx, buf, off, CAPTURE_ENTER, nr);
	bpf_map_update_elem(&pendings, &tid, &p, BPF_ANY);
	return 1;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int on_exit(struct sys_exit_args *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 id = (__u32)ctx->id;
	struct capture_plan *id_plan = bpf_map_lookup_elem(&plans, &id);
	if (!id_plan || !id_plan->any)
		return 1;
	struct pending *p = bpf_map_lookup_elem(&pendings, &tid);
	if (!p)
		return 1;
	__u32 nr = p->nr;
	struct capture_plan *plan = bpf_map_lookup_elem(&plans, &nr);
	struct scratch *sc = scratch_buf();
	if (!plan || !sc || nr != (__u32)ctx->id) {
		bpf_map_delete_elem(&pendings, &tid);
		return 1;
	}
	long ret = ctx->ret;
	__u32 off = sizeof(struct capture_head);
	for (int i = 0; i < 6; i++) {
		int kind = plan->exit[i];
		__u8 la = plan->len_arg[i];
		__u64 len = ret;
		if (!kind && (p->faulted & (1u << i)) && !plan->no_retry) {
			/* The kernel has read it since: it is in memory now. */
			kind = plan->enter[i];
			len = length_of(p->args, la);
		} else if (!kind || ret < 0) {
			continue;
		} else if (kind == CAP_SOCKADDR && la < 6) {
			__u32 n = 0;
			bpf_probe_read_user(&n, sizeof(n), (const void *)length_of(p->args, la));
			len = n;
		} else if (kind != CAP_BUF) {
			len = la;
		}
		off = capture(sc, off, i | kind << 8, p->args[i], len);
	}
	send(ctx, sc->buf, off, CAPTURE_EXIT, nr);
	bpf_map_delete_elem(&pendings, &tid);
	return 1;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (!bpf_map_lookup_elem(&traced, &tid))
		return 0;
	__u32 child_tid = (__u32)BPF_CORE_READ(child, pid);
	__u8 one = 1;
	bpf_map_update_elem(&traced, &child_tid, &one, BPF_ANY);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_task_exit, struct task_struct *task)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&traced, &tid);
	bpf_map_delete_elem(&pendings, &tid);
	return 0;
}
