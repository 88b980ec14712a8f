/*
 * affinity.c - keeping the tracer and the tracee on one CPU.
 *
 * A ptrace stop costs a few microseconds when tracer and tracee share a
 * CPU and many more when the wake-up has to cross CPUs, so both are pinned
 * to the same one (CALLTRACE_NO_PIN=1 turns this off).  An attached
 * process gets its own affinity back when the engine detaches.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"

static int pinning_disabled(void)
{
	const char *v = getenv("CALLTRACE_NO_PIN");
	return v && *v && strcmp(v, "0") != 0;
}

/* The CPU we run on if the tracee may run there, else one both may use. */
static int choose_cpu(const cpu_set_t *tracee)
{
	cpu_set_t mine;
	int here = sched_getcpu();
	if (sched_getaffinity(0, sizeof(mine), &mine) < 0)
		return -1;
	if (here >= 0 && CPU_ISSET(here, &mine) && (!tracee || CPU_ISSET(here, tracee)))
		return here;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &mine) && (!tracee || CPU_ISSET(cpu, tracee)))
			return cpu;
	return -1;
}

void affinity_pin_tracer(struct engine *e)
{
	cpu_set_t tracee, one;
	int have_tracee =
	    e->attach_mode && sched_getaffinity(e->main_pid, sizeof(tracee), &tracee) == 0;
	e->cpu = -1;
	if (pinning_disabled())
		return;
	int cpu = choose_cpu(have_tracee ? &tracee : NULL);
	if (cpu < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0)
		e->cpu = cpu;
}

void affinity_pin_thread(struct engine *e, struct thread *t)
{
	cpu_set_t one;
	if (e->cpu < 0)
		return;
	if (!t->has_saved_affinity &&
	    sched_getaffinity(t->tid, sizeof(t->saved_affinity), &t->saved_affinity) == 0)
		t->has_saved_affinity = 1;
	CPU_ZERO(&one);
	CPU_SET(e->cpu, &one);
	sched_setaffinity(t->tid, sizeof(one), &one);
}

void affinity_restore_thread(struct thread *t)
{
	if (t->has_saved_affinity)
		sched_setaffinity(t->tid, sizeof(t->saved_affinity), &t->saved_affinity);
	t->has_saved_affinity = 0;
}
