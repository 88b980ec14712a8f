/*
 * kernel_seed.c - a seed trace for the reader's fuzzing with kernel chunks
 * in it (system calls with their values, off-CPU intervals), merged into
 * threads' windows: an exec marked by a run of chunks numbered 0 again,
 * a thread and a process the runtime did not record, a call left open
 * across chunks.  Usage: kernel_seed OUT.trace
 */
#include "../../src/format/kernel_stream.h"

#include <stdio.h>
#include <time.h>

static void pause_briefly(void)
{
	struct timespec ts = {0, 1000000};
	nanosleep(&ts, NULL);
}

/* Calls of a thread and its system calls between them, from tick t on. */
static uint64_t busy_thread(struct trace_session *s, struct kernel_stream *ks, uint32_t tid,
			    uint64_t t, int calls)
{
	struct trace_stream st;
	uint64_t args[6] = {3, 0x7ffd1000, 4096, 0, 0, 0};
	trace_stream_init(&st, s, tid);
	trace_stream_enter(&st, 0x401000, t, 0);
	for (int i = 0; i < calls; i++) {
		uint64_t fn = 0x401100 + (uint64_t)(i % 5) * 32;
		trace_stream_enter(&st, fn, t += 40, 0);
		kernel_stream_syscall_enter(ks, (uint32_t)(i % 4), t += 10, args);
		if (i % 3 == 0) {
			kernel_stream_offcpu_enter(ks, OFFCPU_BLOCKED, t += 5);
			kernel_stream_offcpu_exit(ks, t += 200);
		}
		kernel_stream_syscall_exit(ks, t += 10, i % 7 ? 4096 : -11);
		trace_stream_exit(&st, fn, t += 20);
		if (i % 16 == 15)
			kernel_stream_flush(ks);
	}
	kernel_stream_offcpu_enter(ks, OFFCPU_PREEMPTED, t += 10);
	kernel_stream_offcpu_exit(ks, t += 10);
	trace_stream_exit(&st, 0x401000, t += 10);
	trace_stream_destroy(&st);
	return t;
}

int main(int argc, char **argv)
{
	struct trace_session s;
	struct kernel_stream ks, other, stranger;
	uint64_t args[6] = {0};
	if (argc != 2 || trace_session_create_replacing(&s, argv[1], "seed", 5, 16 << 10) < 0) {
		fprintf(stderr, "usage: kernel_seed OUT.trace\n");
		return 2;
	}
	kernel_stream_init(&ks, &s, 500, 500, 4096);
	kernel_stream_syscall_enter(&ks, 12, trace_clock_tick(), args); /* the loader's brk */
	kernel_stream_syscall_exit(&ks, trace_clock_tick(), 0x5000);
	pause_briefly();
	uint32_t a = trace_session_new_image(&s, 500);
	trace_write_process(&s, PROCESS_START, 0, 1, 0, "/bin/seed", "seed", 5);
	trace_write_module(&s, MODULE_LOAD, 0, 0x400000, 0x500000, "", 0, "/bin/seed");
	uint64_t t = busy_thread(&s, &ks, 500, trace_clock_tick(), 100);
	kernel_stream_syscall_enter(&ks, 59, t + 10, args); /* execve */
	kernel_stream_exec(&ks);
	pause_briefly();
	kernel_stream_syscall_exit(&ks, trace_clock_tick(), 0);
	kernel_stream_syscall_enter(&ks, 9, trace_clock_tick(), args);
	kernel_stream_syscall_exit(&ks, trace_clock_tick(), 0x7f0000);
	pause_briefly();
	trace_session_new_image(&s, 500);
	trace_write_process(&s, PROCESS_EXEC, a, 1, 0, "/bin/seed", "seed", 5);
	trace_write_module(&s, MODULE_LOAD, 0, 0x400000, 0x500000, "", 0, "/bin/seed");
	t = busy_thread(&s, &ks, 500, trace_clock_tick(), 200);
	kernel_stream_init(&other, &s, 500, 501, 0);
	kernel_stream_offcpu_enter(&other, OFFCPU_PREEMPTED, t);
	kernel_stream_offcpu_exit(&other, t + 100);
	kernel_stream_init(&stranger, &s, 600, 600, 0);
	kernel_stream_syscall_enter(&stranger, 0, t, args);
	kernel_stream_syscall_exit(&stranger, t + 50, 1);
	kernel_stream_syscall_enter(&stranger, 231, t + 60, args); /* exit_group: open */
	kernel_stream_fini(&ks);
	kernel_stream_fini(&other);
	kernel_stream_fini(&stranger);
	trace_write_exit_of(&s, 500, 0);
	trace_session_close(&s);
	return 0;
}
