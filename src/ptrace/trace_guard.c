/*
 * trace_guard.c - the ptrace engine's trace file losing its space while it
 * records (someone truncated it, the disk filled up, `ulimit -f`): said
 * once, recording stops, and the program goes on untraced.
 *
 * The engine writes each thread's events into a window of the file mapped
 * shared; a window the file no longer backs faults with SIGBUS in the
 * tracer, which would die and leave its breakpoints to kill the program.
 * The SIGBUS handler here replaces that window (or the session header)
 * with anonymous memory and marks the session broken, as the runtime does
 * in the program (src/runtime/session/crash.c); a claim of new space that fails
 * marks it broken as well (trace_writer.c).  The event loop then asks
 * trace_guard_lost() after each event.
 */
#include "engine.h"

#include <signal.h>
#include <string.h>
#include <sys/mman.h>

static struct engine *guarded;
static struct sigaction previous;

static int inside(const void *address, const void *start, size_t len)
{
	return start && (const char *)address >= (const char *)start &&
	       (const char *)address < (const char *)start + len;
}

static int replace(void *start, size_t len, struct trace_session *s)
{
	s->broken = 1;
	return mmap(start, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0) != MAP_FAILED;
}

/* Whether `address` is in a window or a header of the trace; if so, it no
 * longer faults. */
static int recover(const void *address)
{
	for (struct thread *t = guarded ? guarded->threads : NULL; t; t = t->next)
		if (t->has_stream && inside(address, t->stream.map, t->stream.map_len))
			return replace(t->stream.map, t->stream.map_len, &t->proc->session);
	for (struct process *p = guarded ? guarded->procs : NULL; p; p = p->next)
		if (inside(address, p->session.header, TRACE_HEADER_SIZE))
			return replace(p->session.header, TRACE_HEADER_SIZE, &p->session);
	if (guarded && guarded->root && inside(address, guarded->root->header, TRACE_HEADER_SIZE))
		return replace(guarded->root->header, TRACE_HEADER_SIZE, guarded->root);
	return 0;
}

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (info->si_code > 0 && recover(info->si_addr))
		return;
	sigaction(sig, &previous, NULL); /* not ours: it takes its course */
}

void trace_guard_install(struct engine *e)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	guarded = e;
	sigaction(SIGBUS, &sa, &previous);
}

void trace_guard_remove(void)
{
	if (guarded)
		sigaction(SIGBUS, &previous, NULL);
	guarded = NULL;
}

/* The first broken session of the engine's, or NULL. */
static const struct trace_session *broken_session(const struct engine *e)
{
	for (const struct process *p = e->procs; p; p = p->next)
		if (p->session.broken)
			return &p->session;
	return e->root && e->root->broken ? e->root : NULL;
}

int trace_guard_lost(struct engine *e)
{
	const struct trace_session *s = broken_session(e);
	if (!s)
		return 0;
	if (!e->trace_lost)
		engine_error("%s: %s; recording stopped, the program goes on untraced", s->path,
			     trace_session_broken_reason(s));
	e->trace_lost = 1;
	return 1;
}
