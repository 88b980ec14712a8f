/*
 * threads.c - the traced threads: lookup by tid, event streams and
 * resuming.  Below the frames, the modules and the processes: it calls
 * only the trace writer (waiting for stops is event_loop.c's).
 */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>
#include "engine.h"

#define HASH_SIZE (sizeof(((struct engine *)0)->thread_hash) / sizeof(struct thread *))

static size_t hash_of(pid_t tid)
{
	return (size_t)tid % HASH_SIZE;
}

struct thread *thread_find(struct engine *e, pid_t tid)
{
	for (struct thread *t = e->thread_hash[hash_of(tid)]; t; t = t->hash_next)
		if (t->tid == tid)
			return t;
	return NULL;
}

struct thread *thread_new(struct engine *e, struct process *p, pid_t tid)
{
	struct thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	t->proc = p;
	t->hash_next = e->thread_hash[hash_of(tid)];
	e->thread_hash[hash_of(tid)] = t;
	t->next = e->threads;
	e->threads = t;
	p->nthreads++;
	return t;
}

static void read_comm(pid_t pid, pid_t tid, char *name, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	name[0] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, name, len - 1);
	close(fd);
	if (n <= 0)
		n = 0;
	name[n] = '\0';
	char *nl = strchr(name, '\n');
	if (nl)
		*nl = '\0';
}

void thread_start_stream(struct thread *t)
{
	struct process *p = t->proc;
	char name[64];
	if (t->has_stream || p->muted)
		return;
	if (trace_stream_init(&t->stream, &p->session, (uint32_t)t->tid) < 0)
		return;
	t->has_stream = 1;
	read_comm(p->pid, t->tid, name, sizeof(name));
	trace_write_thread(&p->session, (uint32_t)t->tid, THREAD_START, name);
}

void thread_end_stream(struct thread *t, int write_end)
{
	char name[64];
	if (!t->has_stream)
		return;
	if (write_end) {
		/* Named now: the thread may have renamed itself since it started. */
		read_comm(t->proc->pid, t->tid, name, sizeof(name));
		trace_write_thread(&t->proc->session, (uint32_t)t->tid, THREAD_END, name);
	}
	trace_stream_destroy(&t->stream);
	t->has_stream = 0;
}

void thread_free(struct engine *e, struct thread *t)
{
	thread_end_stream(t, 0);
	struct thread **pp = &e->thread_hash[hash_of(t->tid)];
	while (*pp && *pp != t)
		pp = &(*pp)->hash_next;
	if (*pp)
		*pp = t->hash_next;
	for (pp = &e->threads; *pp && *pp != t; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = t->next;
	t->proc->nthreads--;
	free(t->frames);
	free(t);
}

int thread_resume(struct engine *e, struct thread *t, int sig)
{
	if (e->holding) {
		t->stopped = 1;
		if (sig)
			t->pending_sig = sig;
		return 0;
	}
	if (!sig && t->pending_sig) {
		sig = t->pending_sig;
		t->pending_sig = 0;
	}
	int req = t->in_group_stop ? PTRACE_LISTEN : PTRACE_CONT;
	t->stopped = 0;
	if (ptrace(req, t->tid, 0, (long)sig) == 0 || errno == ESRCH)
		return 0;
	if (req == PTRACE_LISTEN && errno == EIO) {
		/* Stopped by job control, then made to run a call of the
		 * engine's: no longer in its group-stop's trap.  It stops
		 * again (SIGSTOP: no handler of the program's runs), reports
		 * that stop and listens there. */
		t->in_group_stop = 0;
		if (ptrace(PTRACE_CONT, t->tid, 0, (long)SIGSTOP) == 0 || errno == ESRCH)
			return 0;
	}
	return -1;
}
