/*
 * session.c - the runtime's life cycle in a process: joining the session's
 * trace file at start, a new process image after fork and exec.
 *
 * The first traced process of a session creates the trace file (unless
 * `calltrace record` already did).  Each process image then announces
 * itself in CALLTRACE_SESSION=<image>:<pid>:<absolute trace path>, so that
 * an exec'd program finds the session and appends.  The entry environ
 * holds is rewritten in place (ids of a fixed width: trace_writer.h),
 * without allocating and without the program's putenv, which may be its
 * own (bash's rebuilds its whole environment).
 *
 * A runtime that `calltrace attach` loaded into a running process
 * (CALLTRACE_INJECT set while it loads) waits for the tool: each attach
 * opens the session the tool created as a new image, and its stop closes
 * it again; the process's environment, signal handlers and exit are left
 * alone.
 */
#include "../runtime.h"
#include "../filters/time_filter.h"
#include "calltrace.h"
#include "../libcall/libcall.h"
#include "../../arch/arch.h"
#include "../../utils/big_table.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { INIT_NONE, INIT_RUNNING, INIT_DONE, INIT_FAILED };
static int init_phase;
static char session_env[PATH_MAX + 64] BIG_TABLE;

/* CALLTRACE_SESSION as this image found it ("CALLTRACE_SESSION=..."): a
 * program that keeps a copy of its environment (bash) hands this stale
 * value to its children, and spawn.c puts the image's own in its place. */
static char inherited_session[PATH_MAX + 64] BIG_TABLE;

/* environ's CALLTRACE_SESSION entry, or NULL. */
static char **session_entry(void)
{
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "CALLTRACE_SESSION=", 18) == 0)
			return e;
	return NULL;
}

/* Writes `value` as TRACE_SESSION_ID_DIGITS decimal digits, zeros first. */
static void put_id(char *out, uint32_t value)
{
	for (int i = TRACE_SESSION_ID_DIGITS; i-- > 0; value /= 10)
		out[i] = (char)('0' + value % 10);
}

/* Sets session_env to this image's entry, for the trace at `path` (which
 * may point into session_env itself: a fork child keeps its parent's
 * path, which the fixed width leaves where it is), and makes environ carry
 * it.  An entry of the same trace there (the one the image inherited, or
 * a copy the program keeps of an earlier image's: bash builds its
 * environment from its own variables) is brought up to date in place: it
 * has the length of the new one.  putenv only when environ has none, or one
 * of another length (set by hand); an entry of another trace (a `calltrace
 * record` run inside this one, for its child) is left alone.  The exec
 * wrappers hand the image's own entry on either way (spawn.c). */
static void publish_session(const char *path)
{
	static const char name[] = "CALLTRACE_SESSION=";
	const size_t head = sizeof(name) - 1 + 2 * (TRACE_SESSION_ID_DIGITS + 1);
	size_t len = strlen(path), room = sizeof(session_env) - head - 1;
	if (len > room)
		len = room;
	memmove(session_env + head, path, len);
	session_env[head + len] = '\0';
	memcpy(session_env, name, sizeof(name) - 1);
	char *ids = session_env + sizeof(name) - 1;
	put_id(ids, runtime_session.image);
	ids[TRACE_SESSION_ID_DIGITS] = ':';
	put_id(ids + TRACE_SESSION_ID_DIGITS + 1, (uint32_t)getpid());
	ids[2 * TRACE_SESSION_ID_DIGITS + 1] = ':';
	char **e = session_entry();
	if (e && *e == session_env)
		return;
	if (e) {
		if (!runtime_session_same_trace(*e))
			return;
		if (strlen(*e) == head + len) {
			memcpy(*e, session_env, head);
			return;
		}
	}
	putenv(session_env);
}

static void write_process_start(uint32_t event, uint32_t parent_image, uint32_t ppid)
{
	char cmd[4096];
	size_t cmd_len = runtime_command_line(cmd, sizeof(cmd));
	trace_write_process(&runtime_session, event, parent_image, ppid, 0, runtime_program_path(),
			    cmd, cmd_len);
}

const char *runtime_session_inherited(void)
{
	return inherited_session[0] ? inherited_session : NULL;
}

const char *runtime_session_published(void)
{
	return session_env[0] ? session_env : NULL;
}

const char *runtime_session_path_of(const char *entry)
{
	const char *p = strchr(entry, '=');
	p = p ? strchr(p + 1, ':') : NULL;
	p = p ? strchr(p + 1, ':') : NULL;
	return p ? p + 1 : NULL;
}

int runtime_session_same_trace(const char *entry)
{
	const char *theirs = runtime_session_path_of(entry);
	const char *ours = session_env[0] ? runtime_session_path_of(session_env) : NULL;
	return theirs && ours && strcmp(theirs, ours) == 0;
}

#define JOIN_REFUSED (-2) /* CALLTRACE_OUTPUT asks for no trace (or said why not) */

static void make_ring(void);
static int create_session(char *path);

/* Opens the session named in CALLTRACE_SESSION, or creates a new one: 0,
 * -1 with errno, or JOIN_REFUSED. */
static int join_session(uint32_t *parent_image, uint32_t *parent_pid, char *path)
{
	const char *env = runtime_getenv("CALLTRACE_SESSION");
	if (env)
		snprintf(inherited_session, sizeof(inherited_session), "CALLTRACE_SESSION=%s", env);
	unsigned image = 0;
	int pid = 0, consumed = 0;
	if (env && sscanf(env, "%u:%d:%n", &image, &pid, &consumed) == 2 && consumed > 0) {
		if (!runtime_image_recorded(0, image, (uint32_t)pid))
			return JOIN_REFUSED;
		snprintf(path, PATH_MAX, "%s", env + consumed);
		*parent_image = image;
		*parent_pid = (uint32_t)pid;
		/* `calltrace attach` hands its file to a process of another user. */
		const char *fd =
		    runtime_attach_mode ? runtime_getenv("CALLTRACE_SESSION_FD") : NULL;
		if (fd && *fd)
			return trace_session_open_fd(&runtime_session, path, atoi(fd));
		return trace_session_open(&runtime_session, path);
	}
	*parent_image = 0;
	*parent_pid = 0;
	if (!runtime_image_recorded(1, 0, 0))
		return JOIN_REFUSED;
	return create_session(path);
}

/* A session of its own, for a process started without `calltrace record`.
 * Its buffers stay out of join_session's frame (noinline): every image
 * runs the start-up below that frame, and each page deeper is a fault. */
static __attribute__((noinline)) int create_session(char *path)
{
	if (runtime_output_plan(runtime_config.output, path, PATH_MAX) < 0)
		return JOIN_REFUSED;
	char cmd[2048];
	size_t cmd_len = runtime_command_line(cmd, sizeof(cmd));
	int (*create)(struct trace_session *, const char *, const char *, size_t, uint32_t) =
	    runtime_config.replace ? trace_session_create_replacing : trace_session_create;
	if (create(&runtime_session, path, cmd, cmd_len, runtime_config.window_size) < 0)
		return -1;
	if (runtime_session.created.replaced_fd >= 0)
		close(runtime_session.created.replaced_fd); /* no thread of ours to do it */
	make_ring();
	char placement[2 * PATH_MAX + 128];
	trace_session_placement(&runtime_session, path, placement, sizeof(placement));
	if (placement[0])
		runtime_say("%s", placement);
	snprintf(path, PATH_MAX, "%s", runtime_session.path);
	return 0;
}

/* CALLTRACE_RING=SIZE: the new session's file is a ring of that size (a
 * flight recorder: trace_writer.h); a bad size is said, and the trace
 * grows as usual. */
static void make_ring(void)
{
	const char *text = runtime_getenv("CALLTRACE_RING");
	uint64_t size;
	if (!text || !*text)
		return;
	if (trace_ring_parse_size(text, &size) < 0)
		runtime_say("CALLTRACE_RING=%s is not a size from 64K (e.g. 16M); the trace is "
			    "not a ring",
			    text);
	else if (trace_session_make_ring(&runtime_session, size) < 0)
		runtime_say("cannot make the trace a ring: %s; it grows as usual",
			    trace_ring_refusal(errno));
}

/* exit() or _exit() of any process of the session: its status goes into
 * the trace (the first process's is written again by `calltrace record`,
 * alike).  Not in a vfork child: the session there is its parent's. */
void runtime_write_exit(int status, void *unused)
{
	(void)unused;
	struct thread_state *t = &runtime_thread;
	uint32_t seen = t->gen;
	if (runtime_time_filter_on && seen != 0 && seen == RUNTIME_LOAD(runtime_state)) {
		t->gen = RUNTIME_GEN_BUSY; /* exit() inside calls: those long enough stay */
		runtime_time_filter_flush(t, 0, trace_clock_tick());
		t->gen = seen;
	}
	uint32_t gen = runtime_internal_begin(t);
	if (runtime_session.header && runtime_session.pid == (uint32_t)getpid()) {
		trace_records_gather(); /* the counts and the exit: one write */
		if (runtime_patch_write_counts)
			runtime_patch_write_counts();
		if (runtime_patch_warm_save) /* for the session's later processes */
			runtime_patch_warm_save();
		trace_write_process(&runtime_session, PROCESS_EXIT, 0, 0, status & 0xff, NULL, NULL,
				    0);
		trace_records_flush(&runtime_session);
	}
	runtime_internal_end(t, gen);
}

/* The lock the fork child will hold (see trace_session_lock_again). */
static int child_lock_fd = -1;

void runtime_fork_prepare(void)
{
	struct thread_state *t = &runtime_thread;
	uint32_t gen = runtime_internal_begin(t);
	child_lock_fd = runtime_session.header && runtime_image_follows_children()
			    ? trace_session_lock_again(&runtime_session)
			    : -1;
	runtime_internal_end(t, gen);
}

void runtime_fork_parent(void)
{
	if (child_lock_fd >= 0)
		close(child_lock_fd);
	child_lock_fd = -1;
}

/* --no-follow: the fork child records nothing, ever (calltrace_start and
 * the control signal included); its session stays its parent's, which
 * its exit leaves alone (session_end.c), and a crash is its own. */
static void leave_child_unrecorded(void)
{
	__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
	runtime_stopped_for_good = 1;
	runtime_crash_handler_remove();
}

void runtime_fork_child(void)
{
	if (!runtime_image_follows_children()) {
		leave_child_unrecorded();
		return;
	}
	struct thread_state *t = &runtime_thread;
	uint32_t gen = runtime_internal_begin(t);
	uint32_t parent_image = runtime_session.image;
	uint32_t ppid = runtime_session.pid;
	trace_stream_fork_child(&t->stream);
	runtime_time_filter_fork_child(t);	/* its calls held back, too */
	t->stream.depth_base = t->stream.depth; /* entered in the parent */
	t->stream.tid = (uint32_t)syscall(SYS_gettid);
	if (child_lock_fd >= 0) /* its end is its own (session_end.c) */
		trace_session_adopt_lock(&runtime_session, child_lock_fd);
	child_lock_fd = -1;
	trace_session_new_image(&runtime_session, (uint32_t)getpid());
	if (!runtime_attach_mode) /* an attached process's environment is left alone */
		publish_session(runtime_session_path_of(session_env));
	trace_records_gather();
	write_process_start(PROCESS_FORK, parent_image, ppid);
	runtime_modules_rewrite();
	char name[17] = "";
	prctl(PR_GET_NAME, name, 0, 0, 0);
	trace_write_thread(&runtime_session, t->stream.tid, THREAD_START, name);
	trace_records_flush(&runtime_session);
	runtime_internal_end(t, gen);
}

/* Joins (or creates) the session and announces this process image in it. */
static int open_image(void)
{
	char path[PATH_MAX];
	uint32_t parent_image, parent_pid;
	runtime_config_load(&runtime_config);
	runtime_max_depth = runtime_config.max_depth ? runtime_config.max_depth : UINT32_MAX;
	int joined = join_session(&parent_image, &parent_pid, path);
	if (joined < 0) {
		if (joined != JOIN_REFUSED)
			runtime_say("cannot write trace %s: %s", path,
				    trace_session_refusal(&runtime_session, errno));
		return -1;
	}
	runtime_filter_init(); /* in a process that records only */
	runtime_time_filter_init();
	/* Filters: every call asks them (an attach may bring them, or not). */
	runtime_fast_depth =
	    trace_clock_kind == TRACE_CLOCK_TSC && !runtime_filters_on && !runtime_time_filter_on
		? runtime_max_depth
		: 0;
	uint32_t pid = (uint32_t)getpid();
	trace_session_new_image(&runtime_session, pid);
	uint32_t how = PROCESS_START;
	if (parent_image && parent_pid == pid)
		how = PROCESS_EXEC;
	else if (parent_image)
		how = PROCESS_FORK; /* spawned without fork (posix_spawn, vfork) */
	trace_records_gather();	    /* the process and its modules: one write */
	write_process_start(how, parent_image, parent_pid);
	if (!runtime_attach_mode) /* an attached process's environment is left alone */
		publish_session(path);
	runtime_modules_scan();
	trace_records_flush(&runtime_session);
	runtime_debug("recording to %s (image %u)", path, runtime_session.image);
	return 0;
}

static int init_once(void)
{
	if (open_image() < 0)
		return -1;
	runtime_longjmp_init();
	runtime_threads_init();
	/* An attached process keeps its own signal handlers, children and
	 * exit: the runtime only records between the tool's start and stop. */
	if (!runtime_attach_mode) {
		runtime_wait_init();
		runtime_tool_find();
		runtime_crash_handler_install();
		runtime_control_install();
		pthread_atfork(runtime_fork_prepare, runtime_fork_parent, runtime_fork_child);
		on_exit(runtime_write_exit, NULL);
		runtime_session_end_init();
	}
	runtime_args_init();
	if (runtime_patch_init)
		runtime_patch_init();
	if (runtime_libcall_init)
		runtime_libcall_init();
	if (!runtime_patch_init && runtime_args_on)
		runtime_say(
		    ARCH_HAS_ARGS
			? "arguments are captured by libcalltrace.so only (this program "
			  "links the static runtime)"
			: "arguments are captured on x86-64 only for now (this is " ARCH_NAME ")");
	return 0;
}

int runtime_init(void)
{
	int phase = __atomic_load_n(&init_phase, __ATOMIC_ACQUIRE);
	if (phase == INIT_DONE)
		return 0;
	if (phase == INIT_FAILED)
		return -1;
	int expected = INIT_NONE;
	if (!__atomic_compare_exchange_n(&init_phase, &expected, INIT_RUNNING, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		/* Another thread initialises; its calls until then are lost. */
		return __atomic_load_n(&init_phase, __ATOMIC_ACQUIRE) == INIT_DONE ? 0 : -1;
	}
	runtime_own_work_init();
	runtime_say_keep_stderr(); /* (an attach's lines go to its tool) */
	uint32_t gen = runtime_internal_begin(&runtime_thread);
	int ok = init_once() == 0;
	runtime_internal_end(&runtime_thread, gen);
	__atomic_store_n(&runtime_start_gen, runtime_generation, __ATOMIC_RELEASE);
	__atomic_store_n(&runtime_state, ok && !runtime_config.start_off ? runtime_generation : 0,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&init_phase, ok ? INIT_DONE : INIT_FAILED, __ATOMIC_RELEASE);
	return ok ? 0 : -1;
}

/* glibc calls it with main's argc, argv and environ (not every C library
 * does: elsewhere the command line is read from /proc/self/cmdline). */
__attribute__((constructor(101))) static void runtime_constructor(int argc, char **argv,
								  char **envp)
{
	(void)envp;
	int saved = errno;
#ifdef __GLIBC__
	runtime_image_arguments(argc, argv);
#else
	(void)argc;
	(void)argv;
#endif
	/* The exec and spawn wrappers work in an image that is not recorded
	 * too (spawn.c). */
	runtime_spawn_init();
	/* Brought in by `calltrace attach`: nothing until the tool says. */
	if (runtime_getenv("CALLTRACE_INJECT"))
		__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
	else
		runtime_init();
	errno = saved;
}

/* ---- attached to a running process (patch_attach.c) --------------------- */

int runtime_attach_session_open(void)
{
	runtime_attach_mode = 1;
	__atomic_add_fetch(&runtime_session_epoch, 1, __ATOMIC_ACQ_REL);
	runtime_stopped_for_good = 0;
	int expected = INIT_FAILED;
	__atomic_compare_exchange_n(&init_phase, &expected, INIT_NONE, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&init_phase, __ATOMIC_ACQUIRE) == INIT_NONE)
		return runtime_init(); /* the first attach: everything, patching too */
	runtime_own_work_init();
	uint32_t gen = runtime_internal_begin(&runtime_thread);
	runtime_modules_forget(); /* written again into the new session */
	int rc = open_image();
	if (rc == 0) {
		runtime_args_init(); /* this attach's --args */
		if (runtime_patch_init)
			runtime_patch_init();
		if (runtime_libcall_init)
			runtime_libcall_init();
	}
	runtime_internal_end(&runtime_thread, gen);
	if (rc == 0)
		calltrace_start();
	return rc;
}

void runtime_attach_session_close(void)
{
	__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
	trace_session_close(&runtime_session);
}

/* ---- the public API (include/calltrace.h) ------------------------------- */

RUNTIME_EXPORT void calltrace_start(void)
{
	if (runtime_init() < 0 || runtime_stopped_for_good)
		return;
	uint32_t next = __atomic_add_fetch(&runtime_generation, 2, __ATOMIC_ACQ_REL);
	__atomic_store_n(&runtime_start_gen, next, __ATOMIC_RELEASE);
	__atomic_store_n(&runtime_state, next, __ATOMIC_RELEASE);
}

RUNTIME_EXPORT void calltrace_init(void)
{
	int saved = errno;
	runtime_init();
	errno = saved;
}

RUNTIME_EXPORT void calltrace_cleanup(void)
{
	calltrace_stop();
	calltrace_flush();
}

RUNTIME_EXPORT void calltrace_stop(void)
{
	__atomic_store_n(&runtime_state, 0, __ATOMIC_RELEASE);
}

RUNTIME_EXPORT int calltrace_enabled(void)
{
	return RUNTIME_LOAD(runtime_state) != 0 && init_phase == INIT_DONE;
}

RUNTIME_EXPORT void calltrace_flush(void)
{
	int saved = errno;
	if (runtime_session.fd >= 0)
		fdatasync(runtime_session.fd);
	errno = saved;
}

RUNTIME_EXPORT void calltrace_mark(const char *text)
{
	struct thread_state *t = &runtime_thread;
	int saved = errno;
	uint32_t seen = t->gen;
	if (runtime_init() == 0 && RUNTIME_LOAD(runtime_state) != 0 && seen != RUNTIME_GEN_BUSY &&
	    seen != RUNTIME_GEN_INTERNAL) {
		t->gen = RUNTIME_GEN_BUSY;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (t->phase == THREAD_ACTIVE ||
		    (t->phase == THREAD_NEW && runtime_thread_begin(t) == 0)) {
			runtime_deferred_flush(t);
			trace_stream_mark(&t->stream, trace_clock_tick(), text);
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->gen = seen;
	}
	errno = saved;
}
