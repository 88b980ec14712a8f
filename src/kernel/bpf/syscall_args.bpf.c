/*
 * syscall_args.bpf.c - the BPF program that copies the traced threads'
 * system call arguments at the call and at the return (strings, buffers,
 * structs, iovecs, an envp's count: syscall_capture.h), for the kernel
 * collector.
 *
 * Attached to raw_syscalls:sys_enter and sys_exit; filtered to the
 * session's threads by the array `traced`, a bit per thread id (the
 * collector sets the first ones; a traced thread's children are added when
 * it forks, before they run; a thread is removed when it exits).  A call
 * that copies nothing at its entry (or at its return) ends there, at the
 * look-up of its plan.  The return reads the call's arguments from the
 * registers the call was made with (the task's pt_regs): nothing is kept
 * from the entry, but for the rare call whose copies at the entry failed
 * (a page not yet in memory), marked in the thread's task storage to be
 * read again at the return.  Each record goes to the CPU's perf ring
 * (`out`) in place of the tracepoint's own sample, on the same clock, with
 * what the sample says (the arguments, or the return): the program then
 * returns 0, which keeps the kernel from writing the sample (one record
 * per call and return, not two).  That 0 keeps it from every perf user of
 * the tracepoint, for the traced threads' calls that copy something
 * only; any other call, or a record that could not be written, returns 1.
 * In record's case (the events enabled by the program's exec), the first
 * thread counts from its exec on (`exec_tid`): no record before the
 * events do.
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

/* The registers a system call was made with, saved at its entry; they
 * hold its arguments still at its exit (the return goes in ax / x0). */
struct pt_regs___x86 {
	unsigned long di, si, dx, r10, r8, r9;
} __attribute__((preserve_access_index));

struct pt_regs___arm64 {
	unsigned long regs[31];
	unsigned long orig_x0;
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

/* A thread's call whose copies at the entry could not be read: they are
 * read again at its return. */
struct faulted {
	unsigned int nr;
	unsigned int args; /* bit per argument */
};

struct scratch {
	unsigned char buf[SCRATCH];
};

/* A bit per thread id (TRACED_WORDS * 64: Linux's largest pid_max). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRACED_WORDS);
	__type(key, __u32);
	__type(value, __u64);
} traced SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CAPTURE_NR_MAX);
	__type(key, __u32);
	__type(value, struct capture_plan);
} plans SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct faulted);
} faults SEC(".maps");

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

/* How many elements of the NULL-terminated array at `ptr` there are (an
 * envp), read 8 pointers at a time (one at a time where 8 cross into
 * memory that cannot be read), CAPTURE_COUNT_MAX at most. */
static __always_inline __u32 put_count(unsigned char *buf, __u32 off, int arg, const void *ptr)
{
	const __u64 *array = ptr;
	struct capture_item *it = item_at(buf, off, arg, CAP_COUNT);
	off = bound(off);
	__u32 n = 0;
	for (int c = 0; c < CAPTURE_COUNT_MAX / 8; c++) {
		__u64 chunk[8];
		int whole = bpf_probe_read_user(chunk, sizeof(chunk), array + c * 8) == 0;
		for (int k = 0; k < 8; k++) {
			if (!whole && bpf_probe_read_user(&chunk[k], 8, array + c * 8 + k) < 0) {
				it->status = CAPTURE_FAULT;
				return off + sizeof(*it);
			}
			if (!chunk[k]) {
				__builtin_memcpy(buf + off + sizeof(*it), &n, 4);
				it->len = 4;
				return off + sizeof(*it) + 4;
			}
			n++;
		}
	}
	it->status = CAPTURED_MORE;
	return off + sizeof(*it);
}

struct iovec_user {
	__u64 base, len;
};

/* `count` iovecs at `ptr` (CAPTURE_IOV_MAX at most, then an item saying
 * there are more), each an item: iov_len, then the first bytes of the
 * data, of `budget` bytes in all spread over them in order (the bytes a
 * readv read; a writev's: all). */
static __always_inline __u32 put_iov(unsigned char *buf, __u32 off, int arg, const void *ptr,
				     __u32 count, __u64 budget)
{
	const struct iovec_user *iov = ptr;
	for (int i = 0; i < CAPTURE_IOV_MAX; i++) {
		struct iovec_user v;
		if ((__u32)i >= count)
			return off;
		struct capture_item *it = item_at(buf, off, arg, CAP_IOV);
		off = bound(off);
		if (bpf_probe_read_user(&v, sizeof(v), iov + i) < 0) {
			it->status = CAPTURE_FAULT;
			return off + sizeof(*it);
		}
		__u64 avail = v.len < budget ? v.len : budget;
		budget -= avail;
		__u32 n = avail > CAPTURE_BUF_MAX ? CAPTURE_BUF_MAX : (__u32)avail;
		if (avail > CAPTURE_BUF_MAX)
			it->status = CAPTURED_CUT;
		unsigned char *p = buf + off + sizeof(*it);
		__builtin_memcpy(p, &v.len, 8);
		n &= 63;
		if (n && bpf_probe_read_user(p + 8, n, (const void *)v.base) < 0) {
			it->status = CAPTURE_FAULT;
			return off + sizeof(*it);
		}
		it->len = (unsigned short)(8 + n);
		off += sizeof(*it) + 8 + n;
	}
	if (count > CAPTURE_IOV_MAX) {
		struct capture_item *it = item_at(buf, off, arg, CAP_IOV);
		it->status = CAPTURED_MORE;
		off = bound(off) + sizeof(*it);
	}
	return off;
}

struct msghdr_user {
	__u64 name;
	__u32 namelen, pad0;
	__u64 iov, iovlen, control, controllen;
	__u32 flags, pad1;
};

/* A struct msghdr (CAP_MSGHDR in syscall_capture.h): the struct, its
 * msg_name, its iovecs with `budget` bytes of data. */
static __always_inline __u32 put_msghdr(unsigned char *buf, __u32 off, int arg, const void *ptr,
					__u64 budget)
{
	struct msghdr_user m;
	struct capture_item *it = item_at(buf, off, arg, CAP_MSGHDR);
	off = bound(off);
	if (bpf_probe_read_user(&m, sizeof(m), ptr) < 0) {
		it->status = CAPTURE_FAULT;
		return off + sizeof(*it);
	}
	__builtin_memcpy(buf + off + sizeof(*it), &m, sizeof(m));
	it->len = sizeof(m);
	off += sizeof(*it) + sizeof(m);
	if (m.name && m.namelen)
		off = put_bytes(buf, off, arg, CAP_SOCKADDR, (const void *)m.name, m.namelen,
				CAPTURE_STRUCT_MAX);
	__u32 count = m.iovlen > CAPTURE_IOV_MAX ? CAPTURE_IOV_MAX + 1 : (__u32)m.iovlen;
	return put_iov(buf, off, arg, (const void *)m.iov, count, budget);
}

/* What capture() copies: argument `arg` as `kind`, and for CAP_IOV how
 * many iovecs (`count`, CAPTURE_IOV_MAX + 1 standing for more). */
static __always_inline int what_of(int arg, int kind, __u64 count)
{
	if (count > CAPTURE_IOV_MAX)
		count = CAPTURE_IOV_MAX + 1;
	return arg | kind << 8 | (int)count << 16;
}

/* Copies argument `what & 7` as `(what >> 8) & 255` (its kind) says into
 * the record at `off` (BPF functions take 5 arguments at most: what_of()
 * packs them); `len` is the length its plan names (an argument's value, a
 * return, or a size; CAP_IOV: the bytes of data).  The record's new end.
 * A global function: the verifier checks it once, not once per argument
 * of each caller. */
__noinline __u32 capture(struct scratch *s, __u32 off, int what, unsigned long ptr, __u64 len)
{
	int arg = what & 7, kind = (what >> 8) & 255;
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
	case CAP_COUNT:
		return put_count(buf, off, arg, (const void *)ptr);
	case CAP_IOV:
		return put_iov(buf, off, arg, (const void *)ptr, (__u32)what >> 16, len);
	case CAP_MSGHDR:
		return put_msghdr(buf, off, arg, (const void *)ptr, len);
	}
	return off;
}

/* Sends the record (its items up to `off`) in place of the tracepoint's
 * sample: 0 when it went (the sample is not written), else 1. */
static __always_inline int send(void *ctx, unsigned char *buf, __u32 off, int kind)
{
	if (off <= CAPTURE_BODY(kind))
		return 1;
	return bpf_perf_event_output(ctx, &out, BPF_F_CURRENT_CPU, buf, off & (SCRATCH - 1)) ? 1
											     : 0;
}

static __always_inline void put_head(unsigned char *buf, int kind, __u32 nr)
{
	struct capture_head *h = (struct capture_head *)buf;
	h->magic = CAPTURE_MAGIC;
	h->kind = (unsigned short)kind;
	h->nr = nr;
}

/* Argument `la`, or the size `la` stands for (6 and more:
 * CAPTURE_SIZE_4, or itself); no variable index: the verifier takes none
 * into the stack or the context. */
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
	return la == CAPTURE_SIZE_4 ? 4 : la;
}

static __always_inline struct scratch *scratch_buf(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&scratches, &zero);
}

/* Whether the current thread is one of the session's: a bit of an array,
 * no hash. */
static __always_inline __u64 *traced_word(__u32 tid)
{
	__u32 word = tid / 64;
	return bpf_map_lookup_elem(&traced, &word);
}

static __always_inline int is_traced(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *w = traced_word(tid);
	return w && (*w >> (tid % 64) & 1);
}

/* Sets or clears `tid`'s bit.  An atomic add (BPF's oldest atomic) of the
 * bit alone: another CPU may change the word's other bits meanwhile, and
 * only this thread's fork or exit changes its own. */
static __always_inline void set_traced(__u32 tid, int on)
{
	__u64 *w = traced_word(tid), bit = 1ull << (tid % 64);
	if (w && !(*w & bit) == !!on)
		__sync_fetch_and_add(w, on ? bit : -bit);
}

/* The call's arguments at its exit, from the registers it was made with
 * (loads through the task's BTF pointer: no helper call per register). */
static __always_inline void args_at_exit(unsigned long *args)
{
	long regs = bpf_task_pt_regs(bpf_get_current_task_btf());
	if (bpf_core_field_exists(struct pt_regs___x86, di)) {
		struct pt_regs___x86 *r = (void *)regs;
		args[0] = r->di;
		args[1] = r->si;
		args[2] = r->dx;
		args[3] = r->r10;
		args[4] = r->r8;
		args[5] = r->r9;
	} else {
		struct pt_regs___arm64 *r = (void *)regs;
		args[0] = r->orig_x0;
		args[1] = r->regs[1];
		args[2] = r->regs[2];
		args[3] = r->regs[3];
		args[4] = r->regs[4];
		args[5] = r->regs[5];
	}
}

SEC("tracepoint/raw_syscalls/sys_enter")
int on_enter(struct sys_enter_args *ctx)
{
	__u32 nr = (__u32)ctx->id;
	/* Most calls of most processes end at the first look-up: an array's. */
	struct capture_plan *plan = bpf_map_lookup_elem(&plans, &nr);
	if (!plan || !plan->at_enter || !is_traced())
		return 1;
	struct scratch *sc = scratch_buf();
	if (!sc)
		return 1;
	unsigned char *buf = sc->buf;
	unsigned long args[6];
	unsigned int faulted = 0;
	struct capture_head *h = (struct capture_head *)buf;
	__u32 off = CAPTURE_BODY(CAPTURE_ENTER);
	for (int i = 0; i < 6; i++)
		h->regs[i] = args[i] = ctx->args[i];
	for (int i = 0; i < 6; i++) {
		int kind = plan->enter[i];
		if (!kind)
			continue;
		__u32 before = off;
		unsigned long len = length_of(args, plan->len_arg[i]);
		int all = kind == CAP_IOV || kind == CAP_MSGHDR; /* a length in the struct */
		off = capture(sc, off, what_of(i, kind, len), args[i], all ? ~0ull : len);
		if (off > before && buf[(before & OFF_MASK) + 2] == CAPTURE_FAULT)
			faulted |= 1u << i;
	}
	put_head(buf, CAPTURE_ENTER, nr);
	int rc = send(ctx, buf, off, CAPTURE_ENTER);
	if (faulted && !plan->no_retry) {
		struct faulted *f = bpf_task_storage_get(&faults, bpf_get_current_task_btf(), 0,
							 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (f) {
			f->nr = nr;
			f->args = faulted;
		}
	}
	return rc;
}

/* The arguments whose copies at the call of `nr` failed (then forgotten). */
static __always_inline unsigned int faulted_at_enter(__u32 nr)
{
	struct faulted *f = bpf_task_storage_get(&faults, bpf_get_current_task_btf(), 0, 0);
	if (!f || !f->args)
		return 0;
	unsigned int args = f->nr == nr ? f->args : 0;
	f->args = 0;
	return args;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int on_exit(struct sys_exit_args *ctx)
{
	__u32 nr = (__u32)ctx->id;
	struct capture_plan *plan = bpf_map_lookup_elem(&plans, &nr);
	if (!plan || !plan->at_exit || !is_traced())
		return 1;
	unsigned int faulted = plan->at_enter && !plan->no_retry ? faulted_at_enter(nr) : 0;
	struct scratch *sc = scratch_buf();
	if (!sc || (!plan->exit_copies && !faulted))
		return 1;
	unsigned long args[6];
	args_at_exit(args);
	long ret = ctx->ret;
	__u32 off = CAPTURE_BODY(CAPTURE_EXIT);
	((struct capture_head *)sc->buf)->regs[0] = ret;
	for (int i = 0; i < 6; i++) {
		int kind = plan->exit[i];
		__u8 la = plan->len_arg[i];
		__u64 len = ret, count = length_of(args, la);
		if (!kind && (faulted & (1u << i))) {
			/* The kernel has read it since: it is in memory now. */
			kind = plan->enter[i];
			len = kind == CAP_IOV || kind == CAP_MSGHDR ? ~0ull : count;
		} else if (!kind || ret < 0) {
			continue;
		} else if (kind == CAP_SOCKADDR && la < 6) {
			__u32 n = 0;
			bpf_probe_read_user(&n, sizeof(n), (const void *)length_of(args, la));
			len = n;
		} else if (kind != CAP_BUF && kind != CAP_IOV && kind != CAP_MSGHDR) {
			len = length_of(args, la); /* a size */
		}
		off = capture(sc, off, what_of(i, kind, count), args[i], len);
	}
	put_head(sc->buf, CAPTURE_EXIT, nr);
	return send(ctx, sc->buf, off, CAPTURE_EXIT);
}

/* The thread whose calls count from its next exec on (record: the child
 * that execs the program once the events are open), set by the loader. */
volatile __u32 exec_tid;

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *task, int old_pid)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (exec_tid && tid == exec_tid) {
		set_traced(tid, 1);
		exec_tid = 0;
	}
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	if (is_traced())
		set_traced((__u32)BPF_CORE_READ(child, pid), 1);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_task_exit, struct task_struct *task)
{
	set_traced((__u32)bpf_get_current_pid_tgid(), 0);
	return 0;
}
