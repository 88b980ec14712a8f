/*
 * follow.c - following the program as it grows: new threads (clone), new
 * processes (fork, vfork, posix_spawn) and new images (exec).
 *
 * A fork child shares its parent's breakpoints and swapped return
 * addresses (its memory is a copy), so it gets a copy of the breakpoint
 * table, of the modules and of the forking thread's shadow stack, and a new
 * image id with a PROCESS_FORK record.  When forks are not followed, a
 * fork child is cleaned up and let go at its first stop; a vfork child
 * shares the parent's memory, so it stays traced, silently, until it execs
 * or exits.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include "engine.h"

struct thread *follow_clone(struct engine *e, struct thread *parent, pid_t child_tid)
{
	struct thread *t = thread_new(e, parent->proc, child_tid);
	if (!t)
		return NULL;
	t->saved_affinity = parent->saved_affinity;
	t->has_saved_affinity = parent->has_saved_affinity;
	return t;
}

static int copy_image(struct process *c, const struct process *p)
{
	if (bp_table_copy(&c->bps, &p->bps) < 0)
		return -1;
	c->modules = malloc((p->nmodules ? p->nmodules : 1) * sizeof(*c->modules));
	c->regions = malloc((p->nregions ? p->nregions : 1) * sizeof(*c->regions));
	if (!c->modules || !c->regions)
		return -1;
	memcpy(c->modules, p->modules, p->nmodules * sizeof(*c->modules));
	for (size_t i = 0; i < p->nmodules; i++)
		c->modules[i].path = strdup(p->modules[i].path ? p->modules[i].path : "");
	c->nmodules = c->cap_modules = p->nmodules;
	memcpy(c->regions, p->regions, p->nregions * sizeof(*c->regions));
	c->nregions = p->nregions;
	c->trap = p->trap;
	c->syscall_insn = p->syscall_insn;
	c->r_debug = p->r_debug;
	memcpy(c->interp, p->interp, sizeof(c->interp));
	return 0;
}

struct thread *follow_fork(struct engine *e, struct thread *parent, pid_t child_pid, int vfork)
{
	struct process *pp = parent->proc;
	struct process *c = process_new(e, child_pid);
	if (!c)
		return NULL;
	c->ppid = pp->pid;
	if (!e->opts->follow_forks || pp->muted) {
		c->muted = 1;
		c->detach_on_stop = !vfork;
	}
	if (copy_image(c, pp) < 0 || mem_open(c) < 0)
		engine_error("cannot follow process %d", (int)child_pid);
	if (!c->muted) {
		process_begin_image(e, c, PROCESS_FORK, pp->session.image);
		modules_announce(c);
	}
	struct thread *t = thread_new(e, c, child_pid);
	if (!t)
		return NULL;
	shadow_copy(t, parent);
	t->saved_affinity = parent->saved_affinity;
	t->has_saved_affinity = parent->has_saved_affinity;
	return t;
}

/* Cleans a fork child that is not followed out of the engine. */
void follow_let_go(struct engine *e, struct thread *t)
{
	struct process *p = t->proc;
	bp_remove_all(p);
	return_restore(e, t);
	affinity_restore_thread(t);
	ptrace(PTRACE_DETACH, t->tid, 0, 0);
	thread_free(e, t);
	process_free(e, p);
}

/* The threads of `p` other than `keep` are gone with the old image. */
static void drop_other_threads(struct engine *e, struct process *p, struct thread *keep)
{
	struct thread *t = e->threads;
	while (t) {
		struct thread *next = t->next;
		if (t->proc == p && t != keep)
			thread_free(e, t);
		t = next;
	}
}

void follow_exec(struct engine *e, struct thread *t)
{
	struct process *p = t->proc;
	uint32_t old_image = p->session.image;
	drop_other_threads(e, p, t);
	thread_end_stream(t, 0);
	t->depth = 0;
	process_reset_image(p);
	if (p->muted) {
		affinity_restore_thread(t);
		ptrace(PTRACE_DETACH, t->tid, 0, 0);
		thread_free(e, t);
		process_free(e, p);
		return;
	}
	process_begin_image(e, p, PROCESS_EXEC, old_image);
	if (!e->holding && process_setup_image(e, p, t) < 0)
		engine_error("process %d: the new program is not traced", (int)p->pid);
}
