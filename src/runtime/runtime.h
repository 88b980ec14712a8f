/*
 * runtime.h - what the parts of libcalltrace.so share.
 *
 * The runtime lives inside the traced program: it is never instrumented,
 * never allocates on the hot path, and keeps errno as it found it.
 */
#ifndef CALLTRACE_RUNTIME_H
#define CALLTRACE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>
#include "../format/own_work.h"
#include "../format/trace_writer.h"
#include "../symbols/func_signature.h"

#define RUNTIME_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

enum thread_phase { THREAD_NEW = 0, THREAD_ACTIVE, THREAD_DEAD };

/* A call a signal handler made while its thread's hook was writing: kept
 * aside, and written after that event (deferred.c). */
struct deferred_call {
	uint64_t address;
	uint64_t tick;
	uint64_t sp;   /* enters: the call's stack pointer */
	uint32_t kind; /* enum hook_kind */
	uint32_t pad;
};
#define RUNTIME_DEFERRED_MAX 256

enum hook_kind { HOOK_ENTER, HOOK_EXIT };

/* Everything a thread needs on the hot path; lives in initial-exec TLS. */
struct thread_state {
	struct trace_stream stream;
	uint32_t gen;	       /* runtime_state this thread last saw */
	uint32_t phase;	       /* enum thread_phase */
	uint32_t fast_depth;   /* calls this deep go to the slow path: the depth
				  limit, or the end of the open-call stack */
	uint32_t start_gen;    /* runtime_start_gen this thread last saw */
	uint32_t module_epoch; /* runtime_module_epoch this thread last saw */
	uint32_t end_rounds;   /* thread-exit destructor rounds seen */
	/* Calls of signal handlers that interrupted a hook (deferred.c). */
	struct deferred_call *deferred; /* RUNTIME_DEFERRED_MAX, or NULL */
	uint32_t ndeferred;
	uint32_t deferred_open;	     /* enters queued whose exits are not */
	uint32_t deferred_skip;	     /* open calls being dropped: the queue was full */
	uint32_t dropped;	     /* calls lost that way, not yet reported */
	void *altstack;		     /* the signal stack the runtime gave the thread */
	struct args_pending *args;   /* args_capture.c; NULL until first needed */
	uint32_t args_saved_gen;     /* gen to go back to after RUNTIME_GEN_ARGS */
	uint64_t *probe;	     /* readable.c: a guarded read runs (its jump) */
	uint64_t probe_lo, probe_hi; /* the bytes it reads */
	uint32_t session_epoch;	     /* runtime_session_epoch its stream was set up in */
	uint32_t filter_scope;	     /* record_filter.c: calls open that match -F */
	uint32_t in_patch_stub;	     /* patch_engine.c: the runtime's own calls pass */
};

/* Arguments read at a function's real entry, waiting for its enter. */
struct args_pending {
	uint64_t function; /* 0: none */
	uint64_t slot;	   /* where its return address is */
	uint32_t len;
	uint8_t bytes[TRACE_VALUES_MAX];
};

/* A thread's gen while one of its hooks writes an event: no runtime_state
 * ever equals it (generations are even, and 1 is the state before init), so
 * the hooks of a signal handler that interrupts it take the slow path, find
 * the thread busy, and defer their calls until the event is whole. */
#define RUNTIME_GEN_BUSY 3u
/* A thread's gen when its next hook must end the open calls first, as
 * after a stop/start; no runtime_state equals it either. */
#define RUNTIME_GEN_STALE 5u
/* A thread's gen while the runtime does its own work (starting, a fork
 * child, listing modules): whatever program code that calls (a malloc the
 * program defines) is the runtime's doing, and is not recorded. */
#define RUNTIME_GEN_INTERNAL 7u
/* A thread's gen between a -finstrument-functions function's real entry,
 * where its arguments were read, and its enter hook, which must take the
 * slow path to write them (args_capture.c); gen goes back to
 * args_saved_gen there. */
#define RUNTIME_GEN_ARGS 9u

static inline uint32_t runtime_internal_begin(struct thread_state *t)
{
	uint32_t gen = t->gen;
	t->gen = RUNTIME_GEN_INTERNAL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	trace_own_begin(); /* its system calls are not the program's */
	return gen;
}

static inline void runtime_internal_end(struct thread_state *t, uint32_t gen)
{
	trace_own_end();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->gen = gen;
}

extern __thread struct thread_state runtime_thread __attribute__((tls_model("initial-exec")));

/* 0: recording off; otherwise a generation that changes at every start and
 * whenever every thread must look again (a module unloaded), so that their
 * next hook takes the slow path (see hooks.c). */
extern volatile uint32_t runtime_state;
/* A plain load (one mov), that the thread sanitizer knows to be atomic. */
#define RUNTIME_LOAD(v) __atomic_load_n(&(v), __ATOMIC_RELAXED)
extern volatile uint32_t runtime_start_gen;    /* changes at every start */
extern volatile uint32_t runtime_module_epoch; /* changes when a module goes */
extern uint32_t runtime_max_depth;	       /* UINT32_MAX: unlimited */
/* The depth below which the hooks' fast path writes: runtime_max_depth when
 * events are stamped with the TSC, which it reads inline; 0 (any other
 * clock, or before init) sends every call to the slow path.  Each thread
 * keeps the smaller of it and its open-call stack's size (fast_depth). */
extern uint32_t runtime_fast_depth;

struct runtime_config {
	char output[4096];	   /* CALLTRACE_OUTPUT */
	uint32_t max_depth;	   /* CALLTRACE_MAX_DEPTH, 0 = unlimited */
	uint32_t window_size;	   /* CALLTRACE_BUFFER_SIZE */
	int start_off;		   /* CALLTRACE_START=off */
	int debug;		   /* CALLTRACE_DEBUG */
	int replace;		   /* CALLTRACE_REPLACE: a finished trace is replaced, not kept */
	int libcall;		   /* CALLTRACE_LIBCALL: library calls recorded (default 1) */
	int libcall_args;	   /* CALLTRACE_LIBCALL_ARGS: 1, 0, or -1 when not set */
	char libcall_nested[1024]; /* CALLTRACE_LIBCALL_NESTED */
};

extern struct runtime_config runtime_config;
extern struct trace_session runtime_session;

/* session/session.c */
/* CALLTRACE_SESSION=... as this image inherited it, and as it gives it
 * to its children; or NULL. */
const char *runtime_session_inherited(void);
const char *runtime_session_published(void);
/* The trace path in a CALLTRACE_SESSION entry ("...=image:pid:path"), or NULL. */
const char *runtime_session_path_of(const char *entry);
/* Whether a CALLTRACE_SESSION entry names the trace this image published
 * (a stale copy of this session's, not another trace's). */
int runtime_session_same_trace(const char *entry);
int runtime_init(void); /* idempotent; 0 when recording can go on */
/* core/state.c: makes every thread's next hook take the slow path (keeps recording off
 * when it is off). */
void runtime_state_bump(void);
/* Recording stops for good in this process (the trace cannot grow); says
 * why on stderr, once. */
void runtime_stop_for_good(const char *why);
void runtime_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A line "calltrace: ..." on stderr, whatever CALLTRACE_DEBUG says. */
void runtime_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* state.c: the stderr the image started with is kept for runtime_say (at
 * the runtime's start, before anything is said). */
void runtime_say_keep_stderr(void);
/* config.c */
void runtime_config_load(struct runtime_config *c);
/* hooks.c: the slow path of one event, for the deferred calls too; 1 when
 * an enter was counted (written, left out by a filter, or held back by the
 * time filter: its exit must come). */
int runtime_record_event(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t tick,
			 uint64_t sp);
/* One event for engines other than the hooks (patch_engine.c), by the
 * hooks' fast path where it applies, else the checked path: returns 1 when
 * an enter was counted, written or kept aside for a thread busy writing
 * (its exit must be reported too). */
int runtime_hook_event(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t sp);
/* The same by the checked path only: it writes the arguments captured. */
int runtime_hook_event_checked(struct thread_state *t, uint64_t fn, enum hook_kind kind,
			       uint64_t sp);
/* deferred.c */
void runtime_defer_call(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t sp);
void runtime_deferred_flush(struct thread_state *t);
void runtime_deferred_discard(struct thread_state *t);
void runtime_report_dropped(struct thread_state *t);
/* env.c: getenv, also before libc has set up environ */
const char *runtime_getenv(const char *name);
/* CALLTRACE_KERNEL=1: mark the runtime's own work (own_work_env.c). */
void runtime_own_work_init(void);
/* From now on the CALLTRACE_* settings come only from `block` ("NAME=value"
 * strings, each NUL-ended, then an empty one), not from the environment. */
void runtime_env_override(const char *block);
/* core/state.c, for `calltrace attach` (session/attach_session.c): the runtime was
 * brought into a running process, and records only between an attach's
 * start and its stop, into the session the tool created. */
extern int runtime_attach_mode;
/* Attach mode: the runtime's last line, kept for the tool, not written;
 * and its lines since the attach's start, one after the other, each ended
 * by a newline (as many as fit), for the tool's --verbose. */
extern char runtime_said[256];
extern char runtime_said_lines[8192];
extern uint32_t runtime_said_lines_len;
/* session/tool_watch.c: the attach's calltrace, watched from its start to its
 * finish (CALLTRACE_ATTACH_TOOL); whether it is gone, recording then
 * stopped. */
void runtime_attach_watch_tool(void);
void runtime_attach_unwatch_tool(void);
int runtime_attach_tool_gone(void);
/* Changes at every attach: a thread whose stream is older drops it. */
extern volatile uint32_t runtime_session_epoch;
/* Opens the session the settings name (a new process image in it) and
 * patches, recording on; 0 or -1 (said why on stderr). */
int runtime_attach_session_open(void);
/* Recording off and the session file closed (no thread may be writing). */
void runtime_attach_session_close(void);
/* A fork of a recording process: the child goes on recording, as a new
 * process image of the session (pthread_atfork's three handlers). */
void runtime_fork_prepare(void);
void runtime_fork_parent(void);
void runtime_fork_child(void);
/* threads.c */
int runtime_thread_begin(struct thread_state *t);
void runtime_threads_init(void);
/* A call of a thread whose stream is closed: counted as lost. */
void runtime_thread_call_after_end(struct thread_state *t);
/* The thread's stream was set up for an earlier attach's session: it is
 * dropped unread (that file may be truncated now) and set up again. */
void runtime_thread_rejoin(struct thread_state *t);
/* crash.c */
void runtime_crash_handler_install(void);
/* The program's own handlers back (a process that records nothing). */
void runtime_crash_handler_remove(void);
/* longjmp.c */
void runtime_longjmp_init(void);
/* patch_engine.c (in libcalltrace.so only: weak elsewhere) */
void runtime_patch_init(void) __attribute__((weak));
void runtime_patch_unwind(uint64_t sp) __attribute__((weak));
void runtime_patch_modules_changed(void);
/* The image ends (or an attach stops): the counts of its functions marked
 * and patched go into the trace (a PROCESS_FUNCTIONS record). */
void runtime_patch_write_counts(void) __attribute__((weak));
/* patch_warm.c: the functions that ran here are added to the session's
 * lists (an exit). */
void runtime_patch_warm_save(void) __attribute__((weak));
/* patch_engine.c: before an exec, where the image ends if it succeeds:
 * the functions that ran here added to the session's lists (when this
 * process made first calls of its own) and the counts written (a failed
 * exec writes them again at the exit: the last counts).  Not in a vfork
 * child, which runs on its parent's image. */
void runtime_patch_image_ends_at_exec(void) __attribute__((weak));
/* image.c: whether this process image is recorded (`first`: it creates
 * the session; else the image and pid that CALLTRACE_SESSION names), by
 * CALLTRACE_NO_FOLLOW and CALLTRACE_PROGRAMS. */
int runtime_image_recorded(int first, uint32_t parent_image, uint32_t parent_pid);
/* Whether the children this process forks are recorded (not --no-follow). */
int runtime_image_follows_children(void);
/* Whether the -finstrument-functions hooks that modules call are the
 * runtime's (preloaded or linked), not the C library's empty ones. */
int runtime_hooks_are_ours(void);
/* Whether the program's calls of the hooks record it (it is built with
 * -finstrument-functions, and the hooks are the runtime's). */
int runtime_image_has_hooks(void);
/* loaded_symbols.c: whether the module loaded at `bias` whose dynamic
 * section is at `dynamic` has `name` among its undefined dynamic symbols:
 * 1 or 0; -1 when its tables cannot be read. */
int runtime_loaded_needs(uint64_t bias, const void *dynamic, const char *name);
/* image.c: the program's path as the kernel resolved it (/proc/self/exe),
 * read once per image; "" when it cannot be read. */
const char *runtime_program_path(void);
/* The image's arguments, where the kernel put them (the constructor's
 * argc and argv: the memory /proc/self/cmdline reads); and the command
 * line, arguments NUL-separated, read from there (a fork child's too)
 * or else from /proc/self/cmdline: its length in `buf`. */
void runtime_image_arguments(int argc, char **argv);
size_t runtime_command_line(char *buf, size_t len);
/* Whether the in-process engine records the program (it has no hooks). */
int runtime_image_patched(void);
/* record_filter.c: CALLTRACE_FILTER (-F), CALLTRACE_NOTRACE (-N) */
enum { FILTER_ONLY = 1, FILTER_HIDE = 2 };
void runtime_filter_init(void);
/* Whether the enter of `fn` is written (else it is counted, not written). */
int runtime_filter_enter(struct thread_state *t, uint64_t fn);
void runtime_filter_exit(struct thread_state *t, uint64_t fn);
/* args_capture.c */
int runtime_args_capture_entry(struct thread_state *t, const struct func_plan *plan,
			       uint64_t function, uint64_t *slot, const void *stub_registers);
/* The thread's buffer of pending arguments (made on first use), or NULL. */
struct args_pending *runtime_args_pending_buffer(struct thread_state *t);
/* Bytes to make room for after the enter of `function` when its arguments
 * are pending (0: none are). */
uint32_t runtime_args_pending_for(const struct thread_state *t, uint64_t function);
void runtime_args_write_pending(struct thread_state *t);
void runtime_args_drop_pending(struct thread_state *t);
/* Where a result returned in memory goes, as the entry's registers say
 * (kept for the return: the callee may change the register on aarch64). */
uint64_t runtime_args_result_at(const void *stub_registers);
void runtime_args_write_return(struct thread_state *t, const struct func_plan *plan,
			       uint64_t function, uint64_t slot, const void *stub_registers,
			       uint64_t result_at);
void runtime_args_thread_end(struct thread_state *t);
/* readable.c: copies up to len bytes at `address` that are readable into
 * out; returns how many (0: none, never a fault). */
size_t runtime_read_memory(uint64_t address, void *out, size_t len);
/* From the fault handler: a guarded read of fault_address jumps back. */
void runtime_probe_fault(uint64_t fault_address);
/* Calls each_line for every line of /proc/self/maps (no newline), without
 * the C library nor its memory; -1 when the file cannot be read. */
int runtime_maps_each(void (*each_line)(const char *line, void *ctx), void *ctx);
/* crash_site.c (in libcalltrace.so only: weak elsewhere): the program's
 * function a fault at `pc` (with %r11 as given) hit on its way into, when
 * it hit in the in-process engine's code; 0 when it did not.  *own_code: 1
 * when `pc` is in the trampoline's copy of the function's displaced
 * instructions, which are the function's own code. */
uint64_t runtime_crash_site_function(uint64_t pc, uint64_t r11, int *own_code)
    __attribute__((weak));
/* crash.c: whether its handler still catches SIGSEGV and SIGBUS. */
int runtime_crash_guard_installed(void);
/* args_plans.c: CALLTRACE_CAPTURE_ARGS, CALLTRACE_ARGS_FILTER */
extern int runtime_args_on;
void runtime_args_init(void);
int runtime_args_wanted(const char *function_name);
/* The capture plan of the function at `file_address` in the ELF file
 * `path`, from its DWARF; NULL when there is none. */
const struct func_plan *runtime_args_plan(const char *path, uint64_t file_address);
/* Forgets every module patched (after they were all unpatched), so that
 * runtime_patch_init patches them again. */
void runtime_patch_forget(void);
/* Attached: the entries of the unwinder's functions the runtime watches
 * (left patched after a detach). */
int runtime_patch_is_unwinder(uint64_t address);
/* The counts of each enum patch_verdict since the last runtime_patch_forget. */
const uint32_t *runtime_patch_verdicts(void);
/* inprocess/patch_attach.c: in an attached process, whether the first `displaced`
 * bytes at `address` may be rewritten now (no thread stands inside them,
 * no return address points into them): -1 to patch (their original bytes
 * noted), else the verdict (PATCH_OK: its earlier trampoline, capturing the
 * arguments of `plan`, took it again). */
int runtime_patch_attach_vet(uint64_t address, size_t displaced, const struct func_plan *plan);
/* What the tool reads back (attach_abi.h). */
extern struct attach_info calltrace_attach_info;
/* Where the threads stand, as the tool handed it over at the start. */
void runtime_patch_attach_busy(const uint64_t *busy, uint32_t n);
/* Puts the entries back, but the unwinder's (a thread may still throw
 * through a call whose return goes through the runtime); how many. */
uint32_t runtime_patch_attach_unpatch(void);
/* The function at `address` now jumps to its trampoline at `entry`. */
void runtime_patch_attach_note(uint64_t address, uint64_t entry);
/* Whether the entry at `address` jumps to its trampoline now (recorded). */
int runtime_patch_attach_jumped(uint64_t address);
/* control.c: CALLTRACE_SIGNAL */
void runtime_control_install(void);
/* output.c: what CALLTRACE_OUTPUT asks for; 0 and the trace file's name
 * (absolute, its last part as given: a symbolic link there is never
 * followed), or -1: record nothing (said on stderr when it is not
 * /dev/null). */
int runtime_output_plan(const char *output, char *trace, size_t len);
/* The session's JSON end, "keep|remove:<JSON path>", or NULL: none. */
const char *runtime_json_end(void);
/* session_end.c: the process ends (exit, _exit, a fatal signal); the last
 * of the session out writes the JSON call tree when one was asked for. */
void runtime_session_end(void);
void runtime_session_end_init(void); /* reads CALLTRACE_JSON_END */

/* ---- core/state.c: what the layers share, at the bottom ------------------ */

/* The generation runtime_state takes at the next start, and whether
 * recording stopped for good (a broken trace file, --no-follow). */
extern uint32_t runtime_generation;
extern int runtime_stopped_for_good;
/* Record-time filters (-F, -N) on: every call takes the checked path. */
extern int runtime_filters_on;
/* The time filter on: every call then takes the hooks' checked path, which
 * hands it to the time filter's event. */
extern int runtime_time_filter_on;
/* hooks.c: one event, past the time filter (the record-time filters, the
 * depth limit and the writer); 1 when an enter was counted. */
int runtime_record_now(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t tick,
		       uint64_t sp);

/* What the layers above the record path (core/) lend it, each set when its
 * layer starts, before the first event it concerns; NULL until then.  So
 * core/ calls nothing above it but the session's start (runtime_init: a
 * process's first event starts it, before any constructor may have run). */
struct runtime_record_filter { /* filters/record_filter.c */
	/* Whether the enter of `fn` is written (else it is counted, not written). */
	int (*enter)(struct thread_state *t, uint64_t fn);
	void (*exit)(struct thread_state *t, uint64_t fn);
};
struct runtime_time_filter { /* filters/time_filter.c (time_filter.h says what each does) */
	int (*event)(struct thread_state *t, uint64_t fn, enum hook_kind kind, uint64_t tick,
		     uint64_t sp);
	void (*flush)(struct thread_state *t, int all, uint64_t tick);
	void (*reset)(struct thread_state *t);
	int (*jump_stays_inside)(uint64_t sp);
	void (*unwind)(struct thread_state *t, uint64_t sp, uint64_t tick);
};
struct runtime_args_pending { /* args/args_capture.c: the arguments of a call being entered */
	uint32_t (*pending_for)(const struct thread_state *t, uint64_t function);
	void (*write)(struct thread_state *t);
	void (*drop)(struct thread_state *t);
	void (*thread_end)(struct thread_state *t);
};
extern const struct runtime_record_filter *runtime_record_filter;
extern const struct runtime_time_filter *runtime_time_filter;
extern const struct runtime_args_pending *runtime_args_pending;
extern const struct runtime_args_pending runtime_args_lent; /* args/args_capture.c */
/* session/crash.c's runtime_crash_guard_installed, once its handler is;
 * session/tool_watch.c's runtime_attach_tool_gone, once it watches. */
extern int (*runtime_crash_guard)(void);
extern int (*runtime_tool_gone)(void);
/* session.c: writes the process's exit status (an on_exit handler). */
void runtime_write_exit(int status, void *unused);
/* tool.c: the calltrace tool, found at start (NULL: not found), and run
 * with `args` (NULL-terminated, argv[0] left out), its stdout on stdout_fd
 * (-1: the program's); waits; its exit status or -1.  Async-signal-safe. */
void runtime_tool_find(void);
const char *runtime_tool_path(void);
const char *runtime_tool_missing(void); /* why it was not found, or NULL */
int runtime_tool_run(const char *const args[], int stdout_fd);
/* The same, its stdout copied to stderr line by line after "calltrace: ". */
int runtime_tool_run_relayed(const char *const args[]);
/* wait.c: the exit status of children killed by a signal, when reaped */
void runtime_wait_init(void);
/* spawn.c */
void runtime_spawn_init(void);
/* modules.c */
void runtime_modules_scan(void);
void runtime_modules_forget(void);  /* in a new session: write them again */
void runtime_modules_rewrite(void); /* in a fork child: the parent's, again */
void runtime_module_check(uint64_t address);

#endif
