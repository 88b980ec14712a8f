/*
 * engine.h - what the parts of the ptrace engine share: traced processes
 * (one per process image), their threads, modules and breakpoints.
 *
 * The engine is one single-threaded tracer.  Every instrumented function
 * gets an entry stop: where its first instructions allow, they are replaced
 * by a jmp to a slot that hands the return address to the tracer in %r11,
 * stops on an int3, and swaps the return address for the process's return
 * trap (jump_patch.h); elsewhere an int3 sits on the first byte, and the
 * tracer swaps the return address itself and steps the thread past the
 * displaced instruction by emulating it or sending it through an
 * out-of-line copy (insn_emulate.h).  When the function returns into the
 * trap (another int3, in memory the engine maps into the tracee), the
 * tracer records the exit and puts the thread back on its real return
 * address.  Two stops per call, no single-step.
 */
#ifndef CALLTRACE_DYNAMIC_ENGINE_H
#define CALLTRACE_DYNAMIC_ENGINE_H

#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include "dynamic.h"
#include "crash_note.h"
#include "../symbols/func_signature.h"
#include "insn_emulate.h"
#include "jump_patch.h"

/* ---- breakpoints ---------------------------------------------------------- */

enum bp_kind {
	BP_FUNCTION = 1, /* a traced function's entry */
	BP_RTLD = 2,	 /* the dynamic linker's _dl_debug_state: modules changed */
	BP_UNWIND = 3,	 /* _Unwind_RaiseException & co: an exception starts unwinding */
	BP_CATCH = 4,	 /* __cxa_begin_catch: it was caught */
	BP_LONGJMP = 5,	 /* longjmp & co: the frames below its target are left */
};

struct breakpoint {
	uint64_t address;		/* where a thread stops (the int3 + 0); 0 = free slot */
	uint64_t function;		/* the function's entry: the events' address */
	uint64_t slot;			/* PLAN_JUMP: the slot */
	const struct func_plan *values; /* --args: its values' capture, or NULL */
	uint8_t orig[JUMP_PATCH_LEN];	/* the bytes the patch replaced at `function` */
	uint8_t patch_len;		/* 1: an int3 at the entry; JUMP_PATCH_LEN: a jmp */
	uint8_t kind;			/* enum bp_kind */
	uint8_t scope;			/* -F matches it: its calls and theirs are recorded */
	uint16_t module;		/* index in the process's module list */
	struct entry_plan plan;
	struct jump_plan jump;
};

/* Open-addressing table, address -> breakpoint. */
struct bp_table {
	struct breakpoint *slots;
	size_t size, used; /* size is a power of two */
};

/* ---- modules and scratch memory ------------------------------------------- */

struct module {
	char *path;
	uint64_t bias, low, high;
	uint8_t build_id[64];
	uint32_t build_id_len;
	uint64_t exec_low, exec_high; /* the executable segment's runtime range */
	int instrumented;
	int is_exe, is_rtld;
	int seen; /* mark for rescans */
	int gone; /* unloaded */
};

/* A region of tracee memory the engine mapped for out-of-line slots. */
struct scratch_region {
	uint64_t base, size, used;
};

/* ---- threads and processes ------------------------------------------------ */

struct shadow_frame {
	uint64_t function;		/* entry address, for the exit event */
	uint64_t ret;			/* the real return address */
	uint64_t rsp;			/* rsp at entry: where the return address lives */
	int chained;			/* a tail call: [rsp] already held the trap */
	int unswapped;			/* the real address is back for an unwinder to read */
	const struct func_plan *values; /* --args: to read its return value */
	uint8_t in_scope;		/* -F: it or a call it is inside matches */
	uint8_t shown;			/* its events are written (-F, -D) */
	uint32_t level;			/* frames shown up to it: -D's depth */
};

struct process;

struct thread {
	pid_t tid;
	struct process *proc;
	struct trace_stream stream;
	int has_stream;
	struct shadow_frame *frames;
	size_t depth, cap;
	int stopped;	 /* in a ptrace stop that the engine has not resumed */
	int pending_sig; /* a signal to deliver at the next resume */
	int exited;
	int in_group_stop;	  /* stopped by SIGSTOP & co: resume with PTRACE_LISTEN */
	int unwinding;		  /* an exception is on its way up this thread's stack */
	cpu_set_t saved_affinity; /* attach mode */
	int has_saved_affinity;
	struct crash_note crash;
	struct thread *hash_next;
	struct thread *next; /* in the engine's list */
};

struct process {
	pid_t pid;
	pid_t ppid;
	struct trace_session session; /* this image's copy of the session */
	int mem_fd;		      /* /proc/PID/mem of this image */
	struct bp_table bps;
	struct module *modules;
	size_t nmodules, cap_modules;
	struct scratch_region *regions;
	size_t nregions;
	uint64_t trap;	       /* return trap (int3) address; 0 until set up */
	uint64_t syscall_insn; /* "syscall; int3" in the trap page */
	uint64_t r_debug;      /* the dynamic linker's _r_debug, 0 if none */
	char interp[PATH_MAX]; /* the dynamic linker's real path, "" if none */
	int muted;	       /* a vfork child not followed: no events, detach at exec */
	int detach_on_stop;    /* a fork child not followed: clean up and let go */
	int exited;
	int nthreads;
	struct process *next;
};

struct engine {
	const struct dynamic_options *opts;
	struct trace_session *root;
	struct process *procs;
	struct thread *threads;
	struct thread *thread_hash[1024];
	pid_t main_pid;
	int main_status; /* exit code or 128 + signal */
	int main_signal; /* the signal that killed it, 0 if it exited */
	int have_main_status;
	int attach_mode;
	int trace_lost; /* a session lost its space: recording stopped (said) */
	int holding;	/* collecting stops (attach, detach): resume nothing */
	int verbose;	/* --verbose or CALLTRACE_DEBUG */
	int cpu;	/* the CPU tracer and tracee share; -1: not pinned */
	/* statistics */
	uint64_t stops, calls, jumped, emulated, out_of_line, functions, skipped;
	/* attach: where the threads stood when seized: no jump patch over these */
	uint64_t *busy_rips;
	size_t nbusy;
	struct branch_targets targets;	    /* of the module being instrumented */
	struct signature_table *signatures; /* --args: DWARF, read as modules come */
	int no_jumps;			    /* CALLTRACE_NO_JUMP=1: int3 entries only */
	/* pending stops of threads not yet announced by their parent's event */
	struct pending_stop {
		pid_t tid;
		int status;
	} pending[64];
	int npending;
};

/*
 * The layers, lowest first.  A file calls only files of the layers below
 * its own: news that travels up (a module was mapped, the dynamic linker's
 * list changed, an exception started, a new thread stopped before its
 * parent's event) comes back as a return value that the caller acts on.
 * scripts/call_layers.py prints the graph of calls between the files, read
 * from their objects; tests/e2e/layout_ptrace_engine.sh fails on a cycle.
 *
 *   0. tools: engine_log.c (messages), tracee_mem.c, remote_syscall.c,
 *      affinity.c, elf_image.c, elf_functions.c, threads.c
 *      (thread records, their streams, resuming), crash_note.c (crash
 *      records); below them all, the
 *      shared patching core in src/patch (decoding with capstone,
 *      relocating displaced instructions)
 *   1. insn_emulate.c, jump_patch.c (entry plans and jump slots on that
 *      core), scratch.c (memory mapped into the tracee), capture.c (--args)
 *   2. breakpoints.c: the table, the int3s and jmps, stepping past one
 *   3. modules.c (what is loaded: a walk over the new modules),
 *      instrument.c (which breakpoints to plant in a module),
 *      return_trap.c (a traced call's two stops, the shadow frames)
 *   4. rtld_watch.c, unwind_watch.c: breakpoints that are not traced
 *      functions, and what their hits mean
 *   5. module_setup.c: what a new module gets (trap page, watches,
 *      breakpoints)
 *   6. processes.c (process images), special_stops.c (the watches' stops)
 *   7. follow.c (clone, fork, exec), engine.c (init, teardown, statistics)
 *   8. event_loop.c: waiting for stops and dispatching them
 *   9. launch.c, detach.c; 10. attach.c
 *
 * The in-process attach is a stack of its own on the same tools:
 * held_process.c and target_symbols.c, then remote_call.c and
 * safe_point.c, then inprocess_attach.c.
 */

/* ---- engine_log.c --------------------------------------------------------- */
/* Prints "calltrace: ..." (and verbose notes when opts->verbose). */
void engine_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void engine_note(const struct engine *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ---- tracee_mem.c --------------------------------------------------------- */
int mem_open(struct process *p);
void mem_close(struct process *p);
int mem_read(struct process *p, uint64_t address, void *buf, size_t len);
int mem_write(struct process *p, uint64_t address, const void *buf, size_t len);
/* Through /proc/PID/mem: also writes read-only (code) pages. */
int mem_poke_code(struct process *p, uint64_t address, const void *buf, size_t len);
int mem_read_code(struct process *p, uint64_t address, void *buf, size_t len);
/* As many of the len bytes at address as are readable (0: none). */
size_t mem_read_some(struct process *p, uint64_t address, void *buf, size_t len);

/* ---- remote_syscall.c ----------------------------------------------------- */
/* Runs a system call in stopped thread `t`, executing the "syscall; int3"
 * at `insn`.  Returns the kernel's result (-errno on error), or -ESRCH
 * when the thread died. */
long remote_syscall(struct engine *e, struct thread *t, uint64_t insn, long nr, long a1, long a2,
		    long a3, long a4, long a5, long a6);

/* ---- affinity.c ----------------------------------------------------------- */
/* Picks the CPU for tracer and tracee and pins the tracer to it. */
void affinity_pin_tracer(struct engine *e);
void affinity_pin_thread(struct engine *e, struct thread *t);
void affinity_restore_thread(struct thread *t);

/* ---- threads.c ------------------------------------------------------------ */
struct thread *thread_find(struct engine *e, pid_t tid);
struct thread *thread_new(struct engine *e, struct process *p, pid_t tid);
/* Opens the thread's stream in its process's current image and writes
 * THREAD_START (at the thread's first event). */
void thread_start_stream(struct thread *t);
void thread_end_stream(struct thread *t, int write_end);
void thread_free(struct engine *e, struct thread *t);
/* Resumes a stopped thread (delivering `sig`); 0 or -1. */
int thread_resume(struct engine *e, struct thread *t, int sig);

/* ---- crash_note.c --------------------------------------------------------- */
/* At the delivery stop of `sig` to stopped thread `t`: notes a fatal one
 * (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP). */
void crash_note_signal(struct thread *t, int sig);
/* At the thread's exit stop: writes the crash record when the noted signal
 * ended it. */
void crash_note_exit(struct thread *t);

/* ---- scratch.c ------------------------------------------------------------ */
/* Maps the trap page (return trap, syscall gadget, first slots) near the
 * executable; 0 or -1. */
int scratch_setup_trap_page(struct engine *e, struct thread *t, const struct module *exe);
/* A slot of `len` bytes within reach (+-2 GiB) of `near`, mapping a new
 * region of at least `want` bytes if needed; 0 when none can be had.
 * *trap is the return trap of the slot's region. */
uint64_t scratch_slot(struct engine *e, struct thread *t, uint64_t near, size_t len, size_t want,
		      uint64_t *trap);
/* Is `address` the return trap of one of the process's scratch regions? */
int is_trap(const struct process *p, uint64_t address);

/* ---- capture.c: --args ---------------------------------------------------- */
/* The capture plan of `function` (at `file_address` of module `path`), or
 * NULL when arguments are not captured for it. */
const struct func_plan *capture_plan(struct engine *e, const char *path, const char *function,
				     uint64_t file_address);
/* Right after its enter was written: the call's arguments. */
void capture_arguments(struct thread *t, const struct func_plan *plan,
		       const struct user_regs_struct *r);
/* Right after its exit was written: the call's return value. */
void capture_return(struct thread *t, const struct func_plan *plan,
		    const struct user_regs_struct *r);

/* ---- breakpoints.c -------------------------------------------------------- */
struct breakpoint *bp_find(const struct bp_table *t, uint64_t address);
struct breakpoint *bp_add(struct bp_table *t, uint64_t address);
int bp_table_copy(struct bp_table *dst, const struct bp_table *src);
void bp_table_free(struct bp_table *t);
/* Writes the int3 (or the jmp) of `bp` into the tracee; 0 or -1. */
int bp_insert(struct process *p, struct breakpoint *bp);
/* Puts every original byte back and turns jump slots into plain ways
 * through; 0 or -1. */
int bp_remove_all(struct process *p);
/* Forgets the breakpoints of module `index` (unloaded: its memory is gone). */
void bp_forget_module(struct bp_table *t, uint16_t index);
/* A stop at int3 breakpoint `bp` that is not a traced call: runs its
 * displaced instructions on `r` (%rip at the entry; `ret` the return
 * address at [rsp]) and sets the thread's registers. */
void bp_step_untraced(struct thread *t, const struct breakpoint *bp, struct user_regs_struct *r,
		      uint64_t ret);

/* ---- modules.c ------------------------------------------------------------ */
struct map_line;
/* A walk over the modules newly mapped in a process: begin reads
 * /proc/PID/maps and ends the modules no longer there (MODULE_UNLOAD, their
 * breakpoints forgotten); next adds each new one (the executable first) to
 * the process's list with its MODULE_LOAD, for the caller to set it up. */
struct module_scan {
	struct map_line *maps; /* the file mappings */
	size_t nmaps, next;
	int pass; /* 0: looking for the executable, 1: the other modules */
	char exe[PATH_MAX], interp[PATH_MAX];
};
/* 0, or -1 when the maps cannot be read (end the walk all the same). */
int modules_scan_begin(struct engine *e, struct process *p, struct module_scan *s);
/* The index of the next new module, or -1 when there is none left. */
long modules_scan_next(struct process *p, struct module_scan *s);
void modules_scan_end(struct process *p, struct module_scan *s);
/* Writes MODULE_LOAD for every module the process has (a fork child). */
void modules_announce(struct process *p);
struct module *modules_exe(struct process *p);

/* ---- instrument.c --------------------------------------------------------- */
int instrument_module(struct engine *e, struct thread *t, size_t index);
/* Arms a breakpoint that is not a traced function (rtld, unwinder); 0 or -1. */
int special_breakpoint(struct engine *e, struct thread *t, size_t module_index, uint64_t addr,
		       enum bp_kind kind);

/* ---- return_trap.c -------------------------------------------------------- */
/* -D: calls deeper than `depth` are not written (0: all are). */
void frames_set_max_depth(uint32_t depth);
void frames_set_scope_filter(int on);
/* At the entry breakpoint of a traced function (BP_FUNCTION). */
void entry_hit(struct engine *e, struct thread *t, struct breakpoint *bp,
	       struct user_regs_struct *r);
void return_hit(struct engine *e, struct thread *t, struct user_regs_struct *r);
/* Attach mode, at detach: restores the return addresses still swapped on
 * the thread's stack and moves it out of any out-of-line slot. */
void return_restore(struct engine *e, struct thread *t);
int shadow_copy(struct thread *dst, const struct thread *src);
/* Exceptions: the real return addresses back on the stack for the
 * unwinder; the frames below `rsp` closed; the live ones trapped again. */
void frames_unswap(struct thread *t);
void frames_close_below(struct thread *t, uint64_t rsp, uint64_t tick);
void frames_reswap(struct thread *t);
/* A longjmp whose target stack pointer is `target`: the frames below it
 * end now, unfinished. */
void frames_abandon_below(struct thread *t, uint64_t target, uint64_t tick);

/* ---- rtld_watch.c --------------------------------------------------------- */
/* Puts a breakpoint on the dynamic linker's _dl_debug_state. */
int rtld_watch(struct engine *e, struct thread *t, size_t module_index);
/* At that breakpoint: 1 when the list of loaded objects is consistent
 * again (the modules are to be rescanned), else 0. */
int rtld_hit(struct thread *t);

/* ---- unwind_watch.c ------------------------------------------------------- */
/* Breakpoints on the unwinder's entry points, on __cxa_begin_catch and on
 * longjmp and its kin, in the modules that define them. */
int unwind_watch(struct engine *e, struct thread *t, size_t module_index);
void unwind_hit(struct engine *e, struct thread *t, const struct breakpoint *bp, uint64_t rsp);
/* At the entry of longjmp and its kin (registers as they were there). */
void longjmp_hit(struct thread *t, const struct user_regs_struct *r);

/* ---- module_setup.c ------------------------------------------------------- */
/* Reads the process's modules again: the gone ones end, each new one gets
 * its record, the trap page (the executable), watches and breakpoints.
 * 0 or -1. */
int module_setup_rescan(struct engine *e, struct thread *t);

/* ---- processes.c ---------------------------------------------------------- */
/* A new process image: session copy, image id, process record. */
struct process *process_new(struct engine *e, pid_t pid);
void process_begin_image(struct engine *e, struct process *p, uint32_t event,
			 uint32_t parent_image);
/* The process's new image after exec: modules, trap page, breakpoints. */
int process_setup_image(struct engine *e, struct process *p, struct thread *t);
void process_free(struct engine *e, struct process *p);
/* Forgets the image's breakpoints, modules and scratch (after exec). */
void process_reset_image(struct process *p);
void process_exit(struct engine *e, struct process *p, int status);

/* ---- special_stops.c ------------------------------------------------------ */
/* At a breakpoint of another kind than BP_FUNCTION: acts on what it means
 * (a rescan of the modules, frames ended) and steps the thread past it. */
void special_hit(struct engine *e, struct thread *t, const struct breakpoint *bp,
		 struct user_regs_struct *r);

/* ---- trace_guard.c -------------------------------------------------------- */
/* While installed, a SIGBUS on the trace's windows or headers (the file
 * truncated, its disk full) no longer kills the tracer: the session is
 * marked broken instead. */
void trace_guard_install(struct engine *e);
void trace_guard_remove(void);
/* Whether a session lost its space (said once, then e->trace_lost). */
int trace_guard_lost(struct engine *e);

/* ---- follow.c ------------------------------------------------------------- */
/* The new thread (of the parent's process, or of a new process), NULL if
 * none could be made; the caller handles a stop it reported early. */
struct thread *follow_clone(struct engine *e, struct thread *parent, pid_t child_tid);
struct thread *follow_fork(struct engine *e, struct thread *parent, pid_t child_pid, int vfork);
void follow_exec(struct engine *e, struct thread *t);
/* Cleans a fork child that is not followed out of the engine, detaching it. */
void follow_let_go(struct engine *e, struct thread *t);

/* ---- event_loop.c --------------------------------------------------------- */
extern volatile int engine_stop_requested;
/* Runs until every traced process is gone (0), a stop is requested in
 * attach mode or the trace lost its space (1), or a fatal error (-1). */
int event_loop(struct engine *e);
/* Handles one wait status of thread `t`. */
void event_handle(struct engine *e, struct thread *t, int status);
/* Holds every thread: collects a stop of each (handling what arrives
 * meanwhile) and resumes none until holding ends. */
void engine_collect_stops(struct engine *e);
/* The same after interrupting every thread that runs. */
void engine_stop_all(struct engine *e);

/* ---- detach.c ------------------------------------------------------------- */
/* Attach mode: stops every thread, takes every stop still pending, puts
 * the code and the stacks back and lets every thread go.  0, or -1 when a
 * thread may be left with a SIGTRAP of ours. */
int engine_detach_all(struct engine *e);

/* ---- engine.c ------------------------------------------------------------- */
void engine_init(struct engine *e, const struct dynamic_options *o);
void engine_fini(struct engine *e);
void engine_print_stats(const struct engine *e);

#endif
