/*
 * inprocess_detach.c - the end of an in-process attach (inprocess_attach.c):
 * every thread stopped, the runtime told to stop recording and put the
 * entries back, the threads inside it let finish their event, the trace
 * closed in the process and in each fork child still recording.
 */
#include "inprocess_run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

/* A thread to call the runtime's stop or finish from: the stop may
 * interrupt a thread writing an event (it touches no thread's stream), never
 * one doing the runtime's own work (patching a module just loaded); the
 * finish, only once no thread is inside the runtime. */
static struct held_thread *thread_for(struct held_process *p, int writing_ok)
{
	for (size_t i = 0; i < p->nthreads; i++) {
		struct held_thread *t = &p->threads[i];
		enum thread_spot s = thread_spot(p, t);
		if (s == SPOT_UNUSABLE ||
		    (s == SPOT_RUNTIME &&
		     (!writing_ok || held_runtime_generation(p, t) == ATTACH_GEN_INTERNAL)))
			continue;
		return t;
	}
	return NULL;
}

static int agent_call(struct attach_run *a, uint64_t fn, const char *what, int writing_ok)
{
	struct held_thread *t = thread_for(&a->p, writing_ok);
	if (!t && bring_out_of_runtime(&a->p, 1000) == 0)
		t = thread_for(&a->p, writing_ok);
	if (!t) {
		engine_error("process %d: every thread stays inside the runtime", (int)a->p.pid);
		return -1;
	}
	struct remote_stack s;
	uint64_t rc;
	remote_stack_begin(&s, t);
	return inprocess_call(a, t, fn, what, NULL, 0, &s, &rc);
}

/* Stops recording and puts every entry back; 0, or -1 (the process may
 * keep some entries patched: said). */
int inprocess_stop_agent(struct attach_run *a)
{
	struct held_process *p = &a->p;
	if (held_stop_all(p) < 0 || p->execed)
		return p->exited || p->execed ? 0 : -1;
	held_read_ranges(p, a->runtime);
	if (agent_call(a, a->agent.stop, "calltrace_attach_stop", 1) < 0)
		return -1;
	if (bring_out_of_runtime(p, 2000) < 0) {
		engine_error("process %d: a thread stays inside the runtime; the trace file stays "
			     "open in the process",
			     (int)p->pid);
		return -1;
	}
	if (agent_call(a, a->agent.finish, "calltrace_attach_finish", 0) < 0)
		return -1;
	inprocess_read_info(a);
	return 0;
}

/* The fork children the process made while recording (they record too),
 * as listed in the page they share with it; how many. */
static uint32_t recorded_children(struct attach_run *a, int32_t *pids)
{
	struct attach_children list;
	struct iovec local = {&list, sizeof(list)};
	struct iovec remote = {(void *)(uintptr_t)a->info.children, sizeof(list)};
	if (!a->info.children ||
	    process_vm_readv(a->p.pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(list))
		return 0;
	uint32_t n = list.count < ATTACH_CHILDREN_MAX ? list.count : ATTACH_CHILDREN_MAX;
	memcpy(pids, list.pids, n * sizeof(*pids));
	return n;
}

/* Makes a fork child that still records, with the runtime where its
 * parent has it, stop and close its trace as the parent did; 1 when it
 * did, 0 when it is gone or runs another program, -1 on failure. */
int inprocess_stop_child(const struct attach_run *parent, pid_t pid)
{
	struct attach_run *a = calloc(1, sizeof(*a));
	if (!a)
		return -1;
	a->o = parent->o;
	a->agent = parent->agent;
	memcpy(a->runtime, parent->runtime, sizeof(a->runtime));
	int rc = 0;
	if (target_maps_file(pid, a->runtime) && held_seize(&a->p, pid) == 0) {
		if (inprocess_read_info(a) == 0 && a->info.recording)
			rc = inprocess_stop_agent(a) == 0 ? 1 : -1;
		held_detach_all(&a->p);
	}
	held_free(&a->p);
	free(a);
	return rc;
}

/* Every fork child still recording stops: said how many with --verbose. */
int inprocess_stop_children(struct attach_run *a)
{
	static int32_t pids[ATTACH_CHILDREN_MAX];
	uint32_t n = recorded_children(a, pids), stopped = 0;
	int rc = 0;
	for (uint32_t i = 0; i < n; i++) {
		int r = pids[i] > 0 ? inprocess_stop_child(a, pids[i]) : 0;
		stopped += r > 0;
		rc |= r < 0 ? -1 : 0;
	}
	if (n)
		inprocess_say_verbose(a->o->verbose,
				      "%u processes forked while recording; %u still recorded "
				      "and stopped",
				      n, stopped);
	return rc;
}
