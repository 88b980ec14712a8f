/*
 * attach.c - `calltrace attach`: trace a running process, then leave it as
 * it was.
 *
 * Every thread is seized and interrupted (rescanning /proc/PID/task until
 * no new thread shows up), the process gets its trap page and breakpoints
 * (no jump patch over the bytes a thread stands in), and tracing runs until
 * the duration ends, SIGINT/SIGTERM, or the process exits; then detach.c
 * leaves it as it was.  A process killed while traced is an error.
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

static volatile uint64_t deadline_ns; /* read by the signal handler */

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

void dynamic_attach_stop(int sig)
{
	(void)sig;
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

#define PF_KTHREAD 0x00200000 /* the kernel's flag of its own threads */

/* The state letter and the flags field of /proc/PID/stat; state '?' and
 * flags 0 when unreadable. */
static void process_state(pid_t pid, char *state, unsigned long *flags)
{
	char path[64], buf[1024];
	*state = '?';
	*flags = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *after_name = strrchr(buf, ')');
	if (after_name)
		sscanf(after_name + 1, " %c %*d %*d %*d %*d %*d %lu", state, flags);
}

int dynamic_attach_check(pid_t pid)
{
	if (pid <= 0 || pid == getpid()) {
		engine_error("cannot attach to process %d", (int)pid);
		return -1;
	}
	if (kill(pid, 0) < 0 && errno == ESRCH) {
		engine_error("no process with PID %d", (int)pid);
		return -1;
	}
	char state;
	unsigned long flags;
	process_state(pid, &state, &flags);
	if (flags & PF_KTHREAD) {
		engine_error("process %d is a kernel thread: it cannot be traced", (int)pid);
		return -1;
	}
	if (state == 'Z' || state == 'X') {
		engine_error("process %d is a zombie: it has exited and waits for its parent to "
			     "collect its status; nothing runs there to trace",
			     (int)pid);
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

/* Where every thread stands (and, in a system call, where it restarts):
 * no jump patch may cover these (instrument.c). */
static void note_busy_rips(struct engine *e)
{
	size_t n = 0;
	for (const struct thread *t = e->threads; t; t = t->next)
		n += 2;
	free(e->busy_rips);
	e->nbusy = 0;
	e->busy_rips = malloc(n ? n * sizeof(*e->busy_rips) : 1);
	if (!e->busy_rips)
		return;
	for (const struct thread *t = e->threads; t; t = t->next) {
		struct user_regs_struct r;
		if (ptrace(PTRACE_GETREGS, t->tid, 0, &r) < 0)
			continue;
		e->busy_rips[e->nbusy++] = r.rip;
		if ((long long)r.orig_rax >= 0)
			e->busy_rips[e->nbusy++] = r.rip - 2;
	}
}

static void resume_all(struct engine *e)
{
	e->holding = 0;
	for (struct thread *t = e->threads; t; t = t->next)
		if (t->stopped)
			thread_resume(e, t, 0);
}

static int start_tracing(struct engine *e, struct process *p)
{
	engine_collect_stops(e);
	struct thread *leader = thread_find(e, p->pid);
	if (!leader) {
		engine_error("process %d exited", (int)p->pid);
		return -1;
	}
	note_busy_rips(e);
	process_begin_image(e, p, PROCESS_START, 0);
	int rc = process_setup_image(e, p, leader);
	e->nbusy = 0; /* from now on the threads move */
	if (rc < 0)
		return -1;
	for (struct thread *t = e->threads; t; t = t->next)
		affinity_pin_thread(e, t);
	resume_all(e);
	return 0;
}

static sigset_t mask_before;

/* SIGINT and SIGTERM end the tracing (also one that came blocked before). */
static void set_stop_signals(struct sigaction *old)
{
	struct sigaction sa = {.sa_handler = on_stop_signal}; /* no SA_RESTART */
	sigaction(SIGINT, &sa, &old[0]);
	sigaction(SIGTERM, &sa, &old[1]);
	sigaction(SIGALRM, &sa, &old[2]);
	deadline_ns = 0; /* the duration counts once the breakpoints are in */
	/* A periodic tick also ends a waitpid that started just after a signal. */
	struct itimerval tick = {{0, 100000}, {0, 100000}};
	setitimer(ITIMER_REAL, &tick, NULL);
	sigset_t stops;
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigaddset(&stops, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &stops, &mask_before);
}

static void restore_signals(struct sigaction *old)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	sigprocmask(SIG_SETMASK, &mask_before, NULL);
	sigaction(SIGINT, &old[0], NULL);
	sigaction(SIGTERM, &old[1], NULL);
	sigaction(SIGALRM, &old[2], NULL);
}

/* What became of the process: killed under the engine (an error),
 * exited by itself, or still there. */
static int outcome(const struct engine *e, int rc)
{
	if (!e->have_main_status)
		return rc;
	if (e->main_signal) {
		engine_error("process %d was killed by signal %d (%s) while traced",
			     (int)e->main_pid, e->main_signal, strsignal(e->main_signal));
		return ATTACH_FAILED;
	}
	engine_error("process %d exited with status %d while traced", (int)e->main_pid,
		     e->main_status);
	return rc == ATTACH_DETACHED ? ATTACH_TARGET_EXITED : rc;
}

int dynamic_attach(const struct dynamic_options *o)
{
	struct engine e;
	struct sigaction old[3];
	if (dynamic_attach_check(o->pid) < 0)
		return ATTACH_REFUSED;
	engine_init(&e, o);
	e.attach_mode = 1;
	e.main_pid = o->pid;
	affinity_pin_tracer(&e);
	struct process *p = process_new(&e, o->pid);
	if (!p)
		return ATTACH_FAILED;
	set_stop_signals(old);
	trace_guard_install(&e);
	int rc = ATTACH_REFUSED;
	if (seize_all(&e, p) == 0) {
		rc = ATTACH_FAILED;
		if (start_tracing(&e, p) == 0) {
			deadline_ns = o->duration_ns ? now_ns() + o->duration_ns : 0;
			rc = event_loop(&e) < 0 || e.trace_lost ? ATTACH_FAILED : ATTACH_DETACHED;
		}
	}
	if (e.procs && engine_detach_all(&e) < 0 && rc == ATTACH_DETACHED)
		rc = ATTACH_FAILED;
	trace_guard_remove();
	restore_signals(old);
	rc = outcome(&e, rc);
	engine_print_stats(&e);
	engine_fini(&e);
	return rc;
}
