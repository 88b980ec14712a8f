/*
 * attach.c - `calltrace attach`: trace a running process, then leave it as
 * it was.
 *
 * Every thread is seized and interrupted (rescanning /proc/PID/task until
 * no new thread shows up), the process gets its trap page and breakpoints,
 * and tracing runs until the duration ends, SIGINT/SIGTERM, or the process
 * exits.  Detaching stops every thread again, takes every breakpoint out,
 * writes back every return address still swapped on a stack (the calls
 * active at that moment), moves threads out of out-of-line slots, gives
 * each thread its CPU affinity back, and detaches.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "engine.h"

#define TRACE_OPTIONS                                                                              \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC |     \
	 PTRACE_O_TRACEEXIT)

static uint64_t deadline_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_stop_signal(int sig)
{
	if (sig != SIGALRM || (deadline_ns && now_ns() >= deadline_ns))
		engine_stop_requested = 1;
}

static long status_field(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t len = strlen(field);
	long value = -1;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, field, len) == 0 && line[len] == ':')
			value = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return value;
}

static int check_target(pid_t pid)
{
	if (pid <= 0 || pid == getpid()) {
		engine_error("cannot attach to process %d", (int)pid);
		return -1;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		engine_error("no process with PID %d", (int)pid);
		return -1;
	}
	long tracer = status_field(pid, "TracerPid");
	if (tracer > 0) {
		engine_error("process %d is already traced by process %ld", (int)pid, tracer);
		return -1;
	}
	return 0;
}

static void explain_seize_error(pid_t pid, int err)
{
	char scope[16] = "";
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fgets(scope, sizeof(scope), f))
			scope[strcspn(scope, "\n")] = '\0';
		fclose(f);
	}
	if (err == EPERM && scope[0] && strcmp(scope, "0") != 0)
		engine_error("not allowed to trace process %d: kernel.yama.ptrace_scope is %s "
			     "(run as root, or set it to 0)",
			     (int)pid, scope);
	else if (err == EPERM)
		engine_error("not allowed to trace process %d: %s", (int)pid, strerror(err));
	else
		engine_error("cannot attach to process %d: %s", (int)pid, strerror(err));
}

/* Seizes one thread; 1 seized, 0 gone or already ours, -1 refused. */
static int seize_thread(struct engine *e, struct process *p, pid_t tid)
{
	if (thread_find(e, tid))
		return 0;
	if (ptrace(PTRACE_SEIZE, tid, 0, TRACE_OPTIONS) < 0) {
		if (errno == ESRCH || (errno == EPERM && p->nthreads > 0 &&
				       status_field(tid, "TracerPid") == getpid()))
			return 0;
		explain_seize_error(p->pid, errno);
		return -1;
	}
	if (!thread_new(e, p, tid))
		return -1;
	ptrace(PTRACE_INTERRUPT, tid, 0, 0);
	return 1;
}

/* Seizes every thread, again until no new one appears. */
static int seize_all(struct engine *e, struct process *p)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)p->pid);
	for (int added = 1; added;) {
		DIR *d = opendir(path);
		if (!d) {
			engine_error("no process with PID %d", (int)p->pid);
			return -1;
		}
		struct dirent *de;
		added = 0;
		while ((de = readdir(d)) != NULL) {
			pid_t tid = (pid_t)atoi(de->d_name);
			int rc = tid > 0 ? seize_thread(e, p, tid) : 0;
			if (rc < 0) {
				closedir(d);
				return -1;
			}
			added |= rc;
		}
		closedir(d);
	}
	return 0;
}

static int all_stopped(const struct engine *e)
{
	for (const struct thread *t = e->threads; t; t = t->next)
		if (!t->stopped)
			return 0;
	return 1;
}

/* Collects a stop of every thread, handling what arrives meanwhile. */
static void wait_all_stopped(struct engine *e)
{
	e->holding = 1;
	while (e->procs && !all_stopped(e)) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL);
		if (tid < 0 && errno == EINTR)
			continue;
		if (tid < 0)
			break;
		struct thread *t = thread_find(e, tid);
		if (t)
			event_handle(e, t, status);
		else
			follow_unknown_stop(e, tid, status);
	}
}

static void resume_all(struct engine *e)
{
	e->holding = 0;
	for (struct thread *t = e->threads; t; t = t->next)
		if (t->stopped)
			thread_resume(e, t, 0);
}

static void detach_all(struct engine *e)
{
	e->holding = 1;
	for (struct thread *t = e->threads; t; t = t->next)
		if (!t->stopped)
			ptrace(PTRACE_INTERRUPT, t->tid, 0, 0);
	wait_all_stopped(e);
	for (struct process *p = e->procs; p; p = p->next)
		bp_remove_all(p);
	for (struct thread *t = e->threads; t; t = t->next) {
		return_restore(e, t);
		affinity_restore_thread(t);
		thread_end_stream(t, 0);
		ptrace(PTRACE_DETACH, t->tid, 0, (long)t->pending_sig);
	}
}

static int start_tracing(struct engine *e, struct process *p)
{
	wait_all_stopped(e);
	struct thread *leader = thread_find(e, p->pid);
	if (!leader) {
		engine_error("process %d exited", (int)p->pid);
		return -1;
	}
	process_begin_image(e, p, PROCESS_START, 0);
	if (process_setup_image(e, p, leader) < 0)
		return -1;
	for (struct thread *t = e->threads; t; t = t->next) {
		affinity_pin_thread(e, t);
	}
	resume_all(e);
	return 0;
}

static void set_stop_signals(uint64_t duration_ns, struct sigaction *old)
{
	struct sigaction sa = {.sa_handler = on_stop_signal}; /* no SA_RESTART */
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	sigaction(SIGALRM, &sa, &old[2]);
	deadline_ns = duration_ns ? now_ns() + duration_ns : 0;
	/* A periodic tick also ends a waitpid that started just after a signal. */
	struct itimerval tick = {{0, 100000}, {0, 100000}};
	setitimer(ITIMER_REAL, &tick, NULL);
}

static void restore_signals(struct sigaction *old)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGALRM, &old[2], NULL);
}

int dynamic_attach(const struct dynamic_options *o)
{
	struct engine e;
	struct sigaction old[3];
	engine_init(&e, o);
	e.attach_mode = 1;
	e.main_pid = o->pid;
	engine_stop_requested = 0;
	if (check_target(o->pid) < 0)
		return -1;
	affinity_pin_tracer(&e);
	struct process *p = process_new(&e, o->pid);
	if (!p)
		return -1;
	set_stop_signals(o->duration_ns, old);
	int rc = -1;
	if (seize_all(&e, p) == 0 && start_tracing(&e, p) == 0)
		rc = event_loop(&e) < 0 ? -1 : 0;
	if (e.procs)
		detach_all(&e);
	restore_signals(old);
	engine_print_stats(&e);
	engine_fini(&e);
	return rc;
}
