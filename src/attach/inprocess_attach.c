/*
 * inprocess_attach.c - `calltrace attach` with the in-process engine: the
 * runtime library is loaded into the running process (one of its threads
 * made to call dlopen), patches the chosen functions' entries while every
 * thread is stopped, and records at full speed; at the end every entry is
 * put back and the process runs on as before.
 *
 * The steps, every thread held stopped throughout (held_process.c):
 *   1. a thread is brought to a safe spot (safe_point.c) and the others
 *      out of the C library where they can be;
 *   2. where each thread stands is noted: no rewritten bytes may hold one;
 *   3. unless it is there already (an earlier attach), the runtime is
 *      loaded: setenv("CALLTRACE_INJECT") so that its constructor waits,
 *      dlopen, unsetenv: the environment is as it was after;
 *   4. calltrace_attach_start(settings, where the threads stand) opens the
 *      session the tool created and marks the entries, each patched at its
 *      first call (attach_abi.h);
 *   5. every thread runs; the tool stays the process's tracer only to see
 *      threads come and the process end, passing every signal on.
 * Detach (the duration, SIGINT or SIGTERM): every thread stopped again,
 * calltrace_attach_stop() puts the entries back, the threads inside the
 * runtime are let finish their event, calltrace_attach_finish() closes the
 * trace file, and every thread is let go.  The runtime stays loaded: calls
 * still running return through it.
 */
#include "../ptrace/dynamic.h"
#include "../ptrace/engine.h"
#include "inject.h"
#include "../ptrace/elf_image.h"
#include "../runtime/attach_abi.h"
#include "inprocess_run.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>

/* A line on stderr with --verbose. */
void inprocess_say_verbose(int verbose, const char *fmt, ...)
{
	if (!verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("calltrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int inprocess_read_info(struct attach_run *a)
{
	struct iovec local = {&a->info, sizeof(a->info)};
	struct iovec remote = {(void *)(uintptr_t)a->agent.info, sizeof(a->info)};
	if (process_vm_readv(a->p.pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(a->info))
		return -1;
	a->info.message[sizeof(a->info.message) - 1] = '\0';
	if (a->info.abi != ATTACH_ABI_VERSION)
		return -1;
	a->p.gen_offset = a->info.gen_offset;
	a->p.have_gen = a->info.gen_offset != 0;
	return 0;
}

/* The agent's entry points, for the runtime loaded at `bias`. */
static int find_agent(struct attach_run *a, uint64_t bias)
{
	struct elf_image im;
	uint64_t v[4];
	static const char *const names[4] = {"calltrace_attach_start", "calltrace_attach_stop",
					     "calltrace_attach_finish", "calltrace_attach_info"};
	if (elf_image_open(&im, a->runtime) < 0)
		return -1;
	int rc = 0;
	for (int i = 0; i < 4; i++)
		if (elf_image_symbol(&im, names[i], &v[i]) < 0)
			rc = -1;
	elf_image_close(&im);
	if (rc == 0)
		a->agent = (struct agent){bias + v[0], bias + v[1], bias + v[2], bias + v[3]};
	return rc;
}

/* A call into the process by thread `t`, its arguments strings or
 * integers; -1 after saying why. */
int inprocess_call(struct attach_run *a, struct held_thread *t, uint64_t fn, const char *what,
		   const uint64_t *args, int nargs, const struct remote_stack *s, uint64_t *result)
{
	char why[256];
	if (!fn) {
		engine_error("process %d: no %s to call", (int)a->p.pid, what);
		return -1;
	}
	if (remote_call(&a->p, t, s, fn, args, nargs, result, CALL_TIMEOUT_MS, why, sizeof(why)) <
	    0) {
		engine_error("process %d: %s: %s", (int)a->p.pid, what, why);
		return -1;
	}
	return 0;
}

static uint64_t push_string(struct attach_run *a, struct remote_stack *s, const char *text)
{
	return remote_stack_push(&a->p, s, text, strlen(text) + 1);
}

static void say_dlerror(struct attach_run *a, struct held_thread *t)
{
	struct remote_stack s;
	uint64_t text = 0;
	char buf[256] = "";
	remote_stack_begin(&s, t);
	if (inprocess_call(a, t, target_libc_symbol(a->p.pid, "dlerror"), "dlerror", NULL, 0, &s,
			   &text) == 0 &&
	    text) {
		struct iovec local = {buf, sizeof(buf) - 1},
			     remote = {(void *)(uintptr_t)text, 255};
		process_vm_readv(a->p.pid, &local, 1, &remote, 1, 0);
	}
	engine_error("process %d cannot load %s: %s", (int)a->p.pid, a->runtime,
		     buf[0] ? buf : "dlopen failed");
}

/* Loads the runtime into the process with its constructor held back;
 * its load bias, or 0. */
static uint64_t load_runtime(struct attach_run *a, struct held_thread *t)
{
	struct remote_stack s;
	uint64_t rc = 1, handle = 0, bias = 0;
	remote_stack_begin(&s, t);
	uint64_t name = push_string(a, &s, "CALLTRACE_INJECT");
	uint64_t one = push_string(a, &s, "1");
	uint64_t path = push_string(a, &s, a->runtime);
	if (!name || !one || !path)
		return 0;
	uint64_t setenv_args[3] = {name, one, 1};
	if (inprocess_call(a, t, target_libc_symbol(a->p.pid, "setenv"), "setenv", setenv_args, 3,
			   &s, &rc) < 0 ||
	    (int)rc != 0)
		return 0;
	uint64_t dlopen_args[2] = {path, RTLD_NOW};
	int loaded = inprocess_call(a, t, target_libc_symbol(a->p.pid, "dlopen"), "dlopen",
				    dlopen_args, 2, &s, &handle) == 0;
	inprocess_call(a, t, target_libc_symbol(a->p.pid, "unsetenv"), "unsetenv", &name, 1, &s,
		       &rc);
	if (!loaded)
		return 0;
	if (!handle) {
		say_dlerror(a, t);
		return 0;
	}
	/* The handle is the module's struct link_map: l_addr, its bias, first. */
	struct iovec local = {&bias, 8}, remote = {(void *)(uintptr_t)handle, 8};
	if (process_vm_readv(a->p.pid, &local, 1, &remote, 1, 0) != 8)
		return 0;
	return bias;
}

/* Where the runtime already is in the process (an earlier attach). */
static int runtime_bias(struct attach_run *a, uint64_t *bias)
{
	const char *base = strrchr(a->runtime, '/');
	const char *names[2] = {base ? base + 1 : a->runtime, NULL};
	char path[PATH_MAX];
	return target_module(a->p.pid, names, path, sizeof(path), bias) == 0 &&
		       strcmp(path, a->runtime) == 0
		   ? 0
		   : -1;
}

/* ---- choosing the thread ---------------------------------------------------- */

/* Whether every thread is stopped by job control (SIGSTOP, Ctrl-Z): none
 * may run a call without the process running against its stop. */
static int stopped_by_job_control(const struct held_process *p)
{
	for (size_t i = 0; i < p->nthreads; i++)
		if (!p->threads[i].gone && !p->threads[i].group_stop)
			return 0;
	return p->nthreads > 0;
}

static struct held_thread *choose_thread(struct attach_run *a)
{
	struct held_process *p = &a->p;
	if (stopped_by_job_control(p)) {
		engine_error("process %d is stopped (SIGSTOP, Ctrl-Z): continue it first (kill "
			     "-CONT %d), or use --engine ptrace",
			     (int)p->pid, (int)p->pid);
		return NULL;
	}
	struct held_thread *leader = held_find(p, p->pid);
	if (leader && bring_to_safe_spot(p, leader, SAFE_SPOT_MS) == 0)
		return leader;
	for (size_t i = 0; i < p->nthreads; i++)
		if (&p->threads[i] != leader &&
		    bring_to_safe_spot(p, &p->threads[i], SAFE_SPOT_MS / 4) == 0)
			return &p->threads[i];
	engine_error("process %d: no thread left the C library or the dynamic linker, where "
		     "calling in could deadlock; try --engine ptrace",
		     (int)p->pid);
	return NULL;
}

/* The others out of the C library too where they can be (a lock a thread
 * holds there might be one the call needs). */
static void settle_others(struct attach_run *a, const struct held_thread *chosen)
{
	for (size_t i = 0; i < a->p.nthreads; i++) {
		struct held_thread *t = &a->p.threads[i];
		if (t != chosen && thread_spot(&a->p, t) == SPOT_SYSTEM &&
		    bring_to_safe_spot(&a->p, t, OTHERS_SAFE_SPOT_MS) < 0)
			inprocess_say_verbose(a->o->verbose, "thread %d stays inside the C library",
					      (int)t->tid);
	}
}

/* Where every thread stands, and where one in a system call restarts. */
static size_t busy_pcs(struct attach_run *a, uint64_t *pcs, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < a->p.nthreads && n + 2 <= max; i++) {
		const struct held_thread *t = &a->p.threads[i];
		if (t->gone)
			continue;
		pcs[n++] = t->regs.rip;
		if ((long long)t->regs.orig_rax >= 0)
			pcs[n++] = t->regs.rip - 2;
	}
	return n;
}

/* ---- start ------------------------------------------------------------------ */

/* "NAME=value" strings, each NUL-ended, an empty one last. */
static size_t settings_block(const struct attach_run *a, const char *trace, char *out, size_t len)
{
	const char *pairs[][2] = {{"CALLTRACE_SESSION", NULL},
				  {"CALLTRACE_OUTPUT", trace},
				  {"CALLTRACE_PATCH", "1"},
				  {"CALLTRACE_PATCH_MODULES", a->o->module},
				  {"CALLTRACE_PATCH_OWN", a->o->no_own_libraries ? "0" : "1"},
				  {"CALLTRACE_PATCH_VERBOSE", a->o->verbose ? "1" : NULL},
				  {"CALLTRACE_PATCH_ONLY", a->o->only},
				  {"CALLTRACE_PATCH_HIDE", a->o->hide},
				  {"CALLTRACE_FOLLOW_FORKS", a->o->follow_forks ? NULL : "0"},
				  {"CALLTRACE_CAPTURE_ARGS", a->o->capture_args ? "1" : "0"},
				  {"CALLTRACE_ARGS_FILTER", a->o->args_filter},
				  {"CALLTRACE_KERNEL", a->o->kernel ? "1" : NULL},
				  {"CALLTRACE_SESSION_FD", a->session_fd[0] ? a->session_fd : NULL},
				  {"CALLTRACE_ATTACH_TOOL", a->tool_pid},
				  /* library calls: as the tool's environment says */
				  {"CALLTRACE_LIBCALL", getenv("CALLTRACE_LIBCALL")},
				  {"CALLTRACE_LIBCALL_NESTED", getenv("CALLTRACE_LIBCALL_NESTED")},
				  {"CALLTRACE_TIME_FILTER", getenv("CALLTRACE_TIME_FILTER")}};
	size_t n = (size_t)snprintf(out, len, "CALLTRACE_SESSION=0:0:%s", trace) + 1;
	for (size_t i = 1; i < sizeof(pairs) / sizeof(pairs[0]) && n < len; i++)
		if (pairs[i][1])
			n += (size_t)snprintf(out + n, len - n, "%s=%s", pairs[i][0], pairs[i][1]) +
			     1;
	if (n >= len)
		return 0;
	out[n++] = '\0';
	return n;
}

static int start_agent(struct attach_run *a, struct held_thread *t, const char *trace)
{
	static char block[ATTACH_SETTINGS_MAX];
	static uint64_t pcs[ATTACH_BUSY_MAX];
	size_t block_len = settings_block(a, trace, block, sizeof(block));
	size_t npcs = busy_pcs(a, pcs, ATTACH_BUSY_MAX);
	struct remote_stack s;
	uint64_t rc = 0;
	remote_stack_begin(&s, t);
	uint64_t settings = block_len ? remote_stack_push(&a->p, &s, block, block_len) : 0;
	uint64_t busy = remote_stack_push(&a->p, &s, pcs, npcs * sizeof(*pcs));
	if (!settings || !busy) {
		engine_error("process %d: cannot hand the settings over", (int)a->p.pid);
		return -1;
	}
	uint64_t args[3] = {settings, busy, npcs};
	if (inprocess_call(a, t, a->agent.start, "calltrace_attach_start", args, 3, &s, &rc) < 0)
		return -1;
	if (inprocess_read_info(a) < 0) {
		engine_error("process %d: the runtime there is not this calltrace's",
			     (int)a->p.pid);
		return -1;
	}
	if ((int)rc != 0) {
		engine_error("process %d: the runtime did not start: %s", (int)a->p.pid,
			     a->info.message[0] ? a->info.message : "no reason given");
		return -1;
	}
	return 0;
}

static void say_patched(const struct attach_run *a)
{
	const struct attach_info *i = &a->info;
	uint32_t left = i->thread_inside + i->returns_inside;
	if (!a->o->verbose) {
		if (left) /* else nothing would say why their calls are missing */
			engine_error("in-process engine: %u function%s left alone, not recorded: a "
				     "thread stood in its entry, or a call would return there (-v "
				     "says more)",
				     left, left == 1 ? "" : "s");
		return;
	}
	engine_error("in-process engine: %u of %u functions patched; %u entries took an "
		     "earlier attach's trampoline; %u left alone where a thread stood, %u where a "
		     "call would return inside the rewritten bytes",
		     i->patched, i->functions, i->reused, i->thread_inside, i->returns_inside);
}

/* The runtime's lines at the start (which modules it records, and why):
 * each said after "calltrace: ". */
static void say_runtime_lines(const struct attach_run *a)
{
	static char lines[sizeof(((struct attach_info *)0)->message) * 32];
	size_t len = a->info.said_lines_len < sizeof(lines) ? a->info.said_lines_len : 0;
	struct iovec local = {lines, len};
	struct iovec remote = {(void *)(uintptr_t)a->info.said_lines, len};
	if (!len || process_vm_readv(a->p.pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return;
	for (size_t at = 0; at < len;) {
		size_t n = strcspn(lines + at, "\n");
		n = at + n < len ? n : len - at;
		inprocess_say_verbose(1, "%.*s", (int)n, lines + at);
		at += n + 1;
	}
}

/* At the start: every chosen entry patched at once (not at its first
 * call as when record starts the program: a running process's threads may
 * block the trap a mark needs); the details at the detach (say_patched). */
static void say_marked(const struct attach_run *a)
{
	if (!a->o->verbose)
		return;
	say_runtime_lines(a);
	engine_error("in-process engine: %u of %u functions patched at the attach", a->info.patched,
		     a->info.functions);
}

static int inject_and_start(struct attach_run *a, const char *trace, int fd)
{
	struct held_process *p = &a->p;
	held_read_ranges(p, a->runtime);
	uint64_t bias = 0;
	int loaded = runtime_bias(a, &bias) == 0;
	if (loaded && (find_agent(a, bias) < 0 || inprocess_read_info(a) < 0)) {
		engine_error("process %d has another calltrace runtime loaded", (int)p->pid);
		return -1;
	}
	struct held_thread *t = choose_thread(a);
	if (!t)
		return -1;
	settle_others(a, t);
	if (!loaded) {
		if (!(bias = load_runtime(a, t)) || find_agent(a, bias) < 0)
			return -1;
		held_read_ranges(p, a->runtime);
	}
	if (remote_hand_over_trace(&a->p, t, fd, a->session_fd, sizeof(a->session_fd)) < 0 ||
	    start_agent(a, t, trace) < 0)
		return -1;
	say_marked(a);
	return 0;
}

/* ---- while recording -------------------------------------------------------- */

static int take_statuses(struct attach_run *a)
{
	struct held_process *p = &a->p;
	int status;
	pid_t got;
	while ((got = waitpid(-1, &status, __WALL | WNOHANG)) > 0) {
		held_handle_status(p, got, status);
		struct held_thread *t = held_find(p, got);
		if (t && t->stopped && !p->execed) {
			attach_note_crash(p->pid, t, &a->info, a->session);
			held_resume(p, t);
		}
	}
	return p->exited || p->execed;
}

/* Until the duration ends, SIGINT or SIGTERM comes, or the process ends. */
static void record_until_stop(struct attach_run *a, const sigset_t *waited)
{
	uint64_t deadline = a->o->duration_ns ? now_ns() + a->o->duration_ns : 0;
	for (;;) {
		if (take_statuses(a) || engine_stop_requested)
			return;
		uint64_t now = now_ns(), wait_ns = 100000000u;
		if (deadline && now >= deadline)
			return;
		if (deadline && deadline - now < wait_ns)
			wait_ns = deadline - now;
		struct timespec ts = {(time_t)(wait_ns / 1000000000u),
				      (long)(wait_ns % 1000000000u)};
		int sig = sigtimedwait(waited, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM)
			return;
	}
}

/* What became of the process: as the ptrace engine says it. */
static int outcome(struct attach_run *a, struct trace_session *s, int rc)
{
	struct held_process *p = &a->p;
	if (p->execed) {
		engine_error("process %d started another program: recording ended there",
			     (int)p->pid);
		return rc;
	}
	if (!p->exited)
		return rc;
	s->image = a->info.image;
	s->pid = (uint32_t)p->pid;
	trace_write_process(s, PROCESS_EXIT, 0, 0, p->exit_status, NULL, NULL, 0);
	if (p->exit_signal) {
		engine_error("process %d was killed by signal %d (%s) while traced", (int)p->pid,
			     p->exit_signal, strsignal(p->exit_signal));
		return ATTACH_FAILED;
	}
	engine_error("process %d exited with status %d while traced", (int)p->pid, p->exit_status);
	return rc == ATTACH_DETACHED ? ATTACH_TARGET_EXITED : rc;
}

int dynamic_attach_inprocess(const struct inprocess_options *o, struct trace_session *s)
{
	struct attach_run *a = calloc(1, sizeof(*a));
	char trace[PATH_MAX];
	if (!a || !realpath(o->runtime, a->runtime) || !realpath(s->path, trace)) {
		engine_error("cannot attach: %s", strerror(errno ? errno : ENOMEM));
		free(a);
		return ATTACH_REFUSED;
	}
	a->o = o;
	a->session = s;
	snprintf(a->tool_pid, sizeof(a->tool_pid), "%d", (int)getpid());
	sigset_t waited, old;
	sigemptyset(&waited);
	sigaddset(&waited, SIGINT);
	sigaddset(&waited, SIGTERM);
	sigaddset(&waited, SIGCHLD);
	sigprocmask(SIG_BLOCK, &waited, &old);
	int rc = ATTACH_REFUSED;
	if (held_seize(&a->p, o->pid) == 0) {
		if (inject_and_start(a, trace, s->fd) == 0) {
			held_resume_all(&a->p);
			record_until_stop(a, &waited);
			uint64_t t0 = now_ns();
			rc = inprocess_stop_agent(a) == 0 ? ATTACH_DETACHED : ATTACH_FAILED;
			say_patched(a);
			held_detach_all(&a->p);
			if (inprocess_stop_children(a) < 0)
				rc = ATTACH_FAILED;
			inprocess_say_verbose(o->verbose,
					      "detached in %.2f ms; %u entries put back",
					      (double)(now_ns() - t0) / 1e6, a->info.unpatched);
			rc = outcome(a, s, rc);
		} else {
			held_detach_all(&a->p);
		}
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	held_free(&a->p);
	free(a);
	return rc;
}

int dynamic_attach_inprocess_rescue(const struct inprocess_options *o)
{
	struct attach_run *a = calloc(1, sizeof(*a));
	uint64_t bias;
	int rc = 0;
	if (!a || !realpath(o->runtime, a->runtime)) {
		free(a);
		return -1;
	}
	a->o = o;
	a->p.pid = o->pid;
	if (runtime_bias(a, &bias) == 0 && find_agent(a, bias) == 0) {
		rc = inprocess_stop_child(a, o->pid) < 0 ? -1 : 0;
		if (inprocess_read_info(a) == 0 && inprocess_stop_children(a) < 0)
			rc = -1;
	}
	free(a);
	return rc;
}

int inprocess_attach_possible(pid_t pid, const char *runtime, char *why, size_t len)
{
	static const char *const ours[] = {"libcalltrace", NULL};
	char path[PATH_MAX];
	uint64_t bias;
	if (!runtime) {
		snprintf(why, len, "the runtime library libcalltrace.so is not next to calltrace");
		return -1;
	}
	if (!target_libc_symbol(pid, "dlopen")) {
		snprintf(why, len, "process %d has no C library with dlopen (statically linked?)",
			 (int)pid);
		return -1;
	}
	if (target_module(pid, ours, path, sizeof(path), &bias) == 0 &&
	    !target_maps_file(pid, runtime)) {
		snprintf(why, len, "process %d has another calltrace runtime loaded (%s)", (int)pid,
			 path);
		return -1;
	}
	snprintf(why, len, "process %d is dynamically linked and %s is at hand", (int)pid, runtime);
	return 0;
}
