/*
 * syscall_bpf.h - the BPF side of --syscalls: load the program that copies
 * system call arguments (bpf/syscall_args.bpf.c), tell it which threads
 * are traced and what to copy of each call (syscall_capture.c), and send
 * its records into the session's per-CPU perf rings.
 *
 * Where BPF is refused (not root, a kernel without it, a tool built
 * without libbpf, CALLTRACE_NO_BPF set), the system calls are recorded all
 * the same, their arguments as the registers hold them (pointers).
 */
#ifndef CALLTRACE_SYSCALL_BPF_H
#define CALLTRACE_SYSCALL_BPF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_session;
struct syscall_bpf;

/* Starts copying the arguments of the threads `tids` (and of those they
 * start) into the rings of `ps` (opened, with the system calls); with
 * `from_exec`, from the exec of the one thread (when the events of `ps`
 * are enabled by it).  NULL,
 * with one line in `why` saying why the arguments are shown as pointers,
 * when it cannot. */
struct syscall_bpf *syscall_bpf_start(struct perf_session *ps, uint32_t machine, const pid_t *tids,
				      int ntids, int from_exec, char *why, size_t whylen);
/* Stops copying (before the rings are read for the last time). */
void syscall_bpf_stop(struct syscall_bpf *sb);

#endif
