/*
 * inject.h - what the parts of the in-process attach share: a running
 * process held under ptrace (every thread seized, stopped and resumed as
 * one), function calls made by one of its threads, where its modules and
 * their symbols are, and whether a thread stands somewhere it is safe to
 * call into the C library from.
 */
#ifndef CALLTRACE_DYNAMIC_INJECT_H
#define CALLTRACE_DYNAMIC_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include "../ptrace/crash_note.h"

#define INJECT_REQUEUE_MAX 8

struct held_thread {
	pid_t tid;
	int stopped;	   /* in a ptrace stop we have not resumed */
	int deliver;	   /* the signal of the signal-delivery stop it is in, 0 if none */
	int group_stop;	   /* stopped by SIGSTOP & co: resumed with PTRACE_LISTEN */
	int exiting;	   /* at PTRACE_EVENT_EXIT */
	int interrupting;  /* a PTRACE_INTERRUPT sent has not made its stop yet */
	int stepping;	   /* a single step asked for has not made its stop yet */
	int mask_held;	   /* its signal mask is ours (all blocked) until released */
	uint64_t own_mask; /* ... and this its own */
	int gone;
	int requeue[INJECT_REQUEUE_MAX]; /* signals held back meanwhile: sent again */
	int nrequeue;
	struct user_regs_struct regs; /* as it stopped (valid while stopped) */
	struct crash_note crash;      /* a fatal signal on its way to it */
};

struct code_range {
	uint64_t low, high;
};

#define INJECT_RANGES 32

struct held_process {
	pid_t pid;
	struct held_thread *threads;
	size_t nthreads, cap;
	int exited;	 /* the process is gone */
	int exit_status; /* exit code, or 128 + signal */
	int exit_signal; /* the signal that killed it, 0 if it exited */
	int execed;	 /* it runs another program now */
	/* Executable code of the C library, the dynamic linker and the vdso. */
	struct code_range system[INJECT_RANGES];
	size_t nsystem;
	/* Executable code of the runtime library, once loaded. */
	struct code_range runtime[4];
	size_t nruntime;
	int hold_signals;   /* resumed threads get no signal: it is sent again at the end */
	int32_t gen_offset; /* a thread's runtime generation from fs_base */
	int have_gen;
};

/* ---- held_process.c ------------------------------------------------------- */
/* Seizes every thread of `pid` and stops them all; 0, or -1 (said why). */
int held_seize(struct held_process *p, pid_t pid);
/* Handles one wait status of thread `tid` (a stop, an event, an exit). */
void held_handle_status(struct held_process *p, pid_t tid, int status);
/* Sends thread `t` a PTRACE_INTERRUPT, unless one is on its way already
 * (a thread that stopped for a signal first still owes the interrupt's
 * stop, which comes at its next resume). */
void held_interrupt(struct held_thread *t);
/* Interrupts every running thread and waits until every one is stopped. */
int held_stop_all(struct held_process *p);
/* The threads resumed while signals are held back run with every signal
 * blocked; this gives each its own mask back (every thread stopped). */
void held_release_signals(struct held_process *p);
/* Keeps signal `sig` of thread `t` to send again when it is let go. */
void held_hold_back(struct held_thread *t, int sig);
/* Resumes one stopped thread (its signal delivered unless the process
 * holds signals back); 0 or -1. */
int held_resume(struct held_process *p, struct held_thread *t);
void held_resume_all(struct held_process *p);
/* Lets every thread go, each with its held-back signals; the process runs
 * on untraced. */
void held_detach_all(struct held_process *p);
void held_free(struct held_process *p);
struct held_thread *held_find(struct held_process *p, pid_t tid);
/* Runs thread `t` alone for about `us` microseconds, then stops it again. */
int held_run_alone(struct held_process *p, struct held_thread *t, unsigned us);
/* Runs thread `t` alone for one instruction (stopped again after a few
 * milliseconds if that instruction is a system call that waits); 0 or -1. */
int held_step_alone(struct held_process *p, struct held_thread *t);

/* ---- safe_point.c ---------------------------------------------------------- */
enum thread_spot {
	SPOT_PROGRAM,  /* in the program's own code (or a library not the system's) */
	SPOT_WAITING,  /* blocked in a system call that waits (sleep, read, futex...) */
	SPOT_SYSTEM,   /* running inside the C library or the dynamic linker */
	SPOT_RUNTIME,  /* inside the runtime library (writing an event, patching) */
	SPOT_UNUSABLE, /* exiting, or stopped by a job-control signal */
};
/* Reads /proc/PID/maps for the code ranges of the system libraries and of
 * the runtime at `runtime_path` (NULL: not loaded yet); 0 or -1. */
int held_read_ranges(struct held_process *p, const char *runtime_path);
enum thread_spot thread_spot(struct held_process *p, const struct held_thread *t);
/* The thread's generation in the runtime (attach_abi.h), 0 when unknown. */
uint32_t held_runtime_generation(struct held_process *p, const struct held_thread *t);
/* Brings thread `t` to a spot where it may call into the C library (the
 * program's code, or a waiting system call), letting it run alone a little
 * at a time; 0, or -1 when it does not get there within the steps and
 * slices an idle machine makes in `budget_ms` (or eight times that of the
 * wall clock). */
int bring_to_safe_spot(struct held_process *p, struct held_thread *t, unsigned budget_ms);
/* What the kernel counts of thread `tid` (its schedstat): the time it ran
 * and the time it waited for a CPU while it could run, in ns; 0, or -1
 * when unknown. */
int held_schedstat(pid_t pid, pid_t tid, uint64_t *ran_ns, uint64_t *waited_ns);
/* Lets every thread inside the runtime run on until none is; 0, or -1
 * when some stay after running `budget_ms` of CPU time between them (or
 * after being given eight times that). */
int bring_out_of_runtime(struct held_process *p, unsigned budget_ms);

/* ---- remote_fd.c ------------------------------------------------------------ */
/* Hands our open file `fd` to the process, thread `t` (stopped at a safe
 * spot) receiving it: its number there, or -1 (`why` says why). */
int remote_give_fd(struct held_process *p, struct held_thread *t, int fd, char *why, size_t len);
/* The trace file `fd` for a process that runs as another user (who may
 * not open it): handed over, its number there in `number`; "" when the
 * process opens it itself.  0, or -1 after saying why. */
int remote_hand_over_trace(struct held_process *p, struct held_thread *t, int fd, char *number,
			   size_t len);

/* ---- remote_call.c --------------------------------------------------------- */
/* Data for a remote call, on the thread's stack below its red zone. */
struct remote_stack {
	uint64_t sp; /* lowest byte used so far */
};
void remote_stack_begin(struct remote_stack *s, const struct held_thread *t);
/* Copies `len` bytes below what is used; their address in the target, or 0. */
uint64_t remote_stack_push(struct held_process *p, struct remote_stack *s, const void *data,
			   size_t len);
/* Makes stopped thread `t` call `function` with up to 6 integer arguments
 * on the stack `s`, and puts every register back after.  0 and *result,
 * or -1 (said why in `why`) when the call faulted, the thread died or
 * `timeout_ms` passed. */
int remote_call(struct held_process *p, struct held_thread *t, const struct remote_stack *s,
		uint64_t function, const uint64_t *args, int nargs, uint64_t *result,
		unsigned timeout_ms, char *why, size_t why_len);

/* ---- target_symbols.c ------------------------------------------------------ */
/* The path and load bias of the first module of `pid` whose file name
 * starts with one of `names` (e.g. "libc.so.6"); 0, or -1. */
int target_module(pid_t pid, const char *const *names, char *path, size_t path_len, uint64_t *bias);
/* The address in `pid` of `symbol` of the module at `path` loaded at
 * `bias`; 0 when it has none. */
uint64_t target_symbol(pid_t pid, const char *path, uint64_t bias, const char *symbol);
/* The address of a C library function (libc.so.6, or libdl for dlopen and
 * dlerror with a glibc older than 2.34); 0 when not found. */
uint64_t target_libc_symbol(pid_t pid, const char *symbol);
/* Whether a module of `pid` is the file `path` (same device and inode). */
int target_maps_file(pid_t pid, const char *path);

/* ---- attach_crash.c -------------------------------------------------------- */
struct attach_info;
struct trace_session;
/* Stopped thread `t` of process `pid`, which runs the runtime that said
 * `info`: a fatal signal on its way to it is noted, and written into `s`
 * as the crash record once its exit stop says the signal ended it. */
void attach_note_crash(pid_t pid, struct held_thread *t, const struct attach_info *info,
		       struct trace_session *s);

#endif
