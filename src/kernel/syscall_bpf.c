/*
 * syscall_bpf.c - load and attach the argument-copying BPF program (see
 * syscall_bpf.h), with libbpf and the skeleton the build makes of
 * bpf/syscall_args.bpf.c.  Built without libbpf (CALLTRACE_BPF undefined),
 * it says so and the arguments are shown as pointers.
 */
#include "syscall_bpf.h"
#include "perf_events.h"
#include "syscall_capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CALLTRACE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include "syscall_args.skel.h"

struct syscall_bpf {
	struct syscall_args *skel;
};

static int quiet_libbpf(enum libbpf_print_level level, const char *format, va_list args)
{
	(void)level;
	(void)format;
	(void)args;
	return 0;
}

/* Sets the bits of `tids` in the program's array of traced threads. */
static int set_traced(int traced, const pid_t *tids, int ntids)
{
	for (int i = 0; i < ntids; i++) {
		uint32_t word = (uint32_t)tids[i] / 64;
		uint64_t bits = 0;
		if (word >= TRACED_WORDS)
			continue; /* no such tid on Linux */
		if (bpf_map_lookup_elem(traced, &word, &bits) < 0)
			return -errno;
		bits |= 1ull << ((uint32_t)tids[i] % 64);
		if (bpf_map_update_elem(traced, &word, &bits, BPF_ANY) < 0)
			return -errno;
	}
	return 0;
}

static int fill_maps(struct syscall_bpf *sb, struct perf_session *ps, uint32_t machine,
		     const pid_t *tids, int ntids, int from_exec)
{
	struct capture_plan plan;
	int plans = bpf_map__fd(sb->skel->maps.plans), traced = bpf_map__fd(sb->skel->maps.traced);
	int out = bpf_map__fd(sb->skel->maps.out);
	for (uint32_t nr = 0; nr < CAPTURE_NR_MAX; nr++)
		if (syscall_capture_plan(machine, nr, &plan) &&
		    bpf_map_update_elem(plans, &nr, &plan, BPF_ANY) < 0)
			return -errno;
	for (int cpu = 0; cpu < ps->nrings; cpu++) {
		int fd = perf_session_open_output(ps, cpu);
		if (fd >= 0 && bpf_map_update_elem(out, &cpu, &fd, BPF_ANY) < 0)
			return -errno;
	}
	/* Its records replace the tracepoint's samples: none before the perf
	 * events count (at the exec, when they are enabled by it). */
	if (from_exec && ntids == 1) {
		sb->skel->bss->exec_tid = (uint32_t)tids[0];
		return 0;
	}
	return set_traced(traced, tids, ntids);
}

/* A raw_syscalls program attached through a perf event of the
 * tracepoint's id, the one the session found (perf_tracepoint_ids: in
 * tracefs, or in a private mount of it when it is not mounted), not
 * through libbpf's own lookup, which needs tracefs mounted.  The program
 * runs for the tracepoint on every CPU. */
static int attach_tracepoint(struct bpf_program *prog, uint32_t id, struct bpf_link **link)
{
	struct perf_event_attr attr = {
	    .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr), .config = id};
	int fd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	*link = bpf_program__attach_perf_event(prog, fd);
	if (!*link) {
		int err = -errno;
		close(fd);
		return err;
	}
	return 0;
}

static int attach_all(struct syscall_args *s, const struct perf_session *ps)
{
	int rc = attach_tracepoint(s->progs.on_enter, ps->sys_enter_id, &s->links.on_enter);
	if (rc == 0)
		rc = attach_tracepoint(s->progs.on_exit, ps->sys_exit_id, &s->links.on_exit);
	struct bpf_program *btf[] = {s->progs.on_exec, s->progs.on_fork, s->progs.on_task_exit};
	struct bpf_link **links[] = {&s->links.on_exec, &s->links.on_fork, &s->links.on_task_exit};
	for (int i = 0; rc == 0 && i < 3; i++)
		if (!(*links[i] = bpf_program__attach(btf[i])))
			rc = -errno;
	return rc;
}

struct syscall_bpf *syscall_bpf_start(struct perf_session *ps, uint32_t machine, const pid_t *tids,
				      int ntids, int from_exec, char *why, size_t whylen)
{
	const char *what = "loading the BPF program";
	if (getenv("CALLTRACE_NO_BPF")) {
		snprintf(why, whylen, "CALLTRACE_NO_BPF is set");
		return NULL;
	}
	libbpf_set_print(quiet_libbpf);
	struct syscall_bpf *sb = calloc(1, sizeof(*sb));
	int rc = -ENOMEM;
	if (sb && (sb->skel = syscall_args__open()) != NULL) {
		bpf_map__set_max_entries(sb->skel->maps.out, (uint32_t)ps->nrings);
		rc = syscall_args__load(sb->skel);
		if (rc == 0) {
			what = "filling its maps";
			rc = fill_maps(sb, ps, machine, tids, ntids, from_exec);
		}
		if (rc == 0) {
			what = "attaching it to the tracepoints";
			rc = attach_all(sb->skel, ps);
		}
	}
	if (rc == 0)
		return sb;
	snprintf(why, whylen, "%s failed: %s%s", what, strerror(rc < 0 ? -rc : rc),
		 rc == -EPERM ? " (needs root, or CAP_BPF and CAP_PERFMON)" : "");
	syscall_bpf_stop(sb);
	return NULL;
}

void syscall_bpf_stop(struct syscall_bpf *sb)
{
	if (!sb)
		return;
	if (sb->skel)
		syscall_args__destroy(sb->skel);
	free(sb);
}

#else

struct syscall_bpf *syscall_bpf_start(struct perf_session *ps, uint32_t machine, const pid_t *tids,
				      int ntids, int from_exec, char *why, size_t whylen)
{
	(void)ps;
	(void)from_exec;
	(void)machine;
	(void)tids;
	(void)ntids;
	snprintf(why, whylen, "this calltrace was built without libbpf");
	return NULL;
}

void syscall_bpf_stop(struct syscall_bpf *sb)
{
	(void)sb;
}

#endif
