/*
 * safe_point.c - where a stopped thread stands, and moving it on to where
 * the tool may make it call a function.
 *
 * dlopen, setenv and the runtime's start take the C library's and the
 * dynamic linker's locks (malloc's, the loader's).  A thread interrupted
 * inside either may hold one, and a call made from there would wait for
 * it forever.  So a thread is used only where it holds none:
 *   - in the program's own code (or a library other than the C library and
 *     the dynamic linker), or
 *   - blocked in a system call that waits (a sleep, a read, a futex wait,
 *     poll...): a thread waits there holding no lock of the C library's.
 * A thread found elsewhere runs alone (the others stay stopped), a step at
 * a time, until it stands in such a spot.  What
 * this cannot see: a signal handler in the program's code that interrupted
 * the C library (the lock holder is then further up that stack).
 *
 * Threads inside the runtime library (their generation busy or internal,
 * or their code there) run on together, a little at a time, before the
 * runtime's trace file is closed: recording is off by then, so they leave
 * it after the event they were writing.  Their signals wait meanwhile (and
 * are sent again at the detach): the threads run with every signal blocked,
 * then get their own mask back.
 */
#include "inject.h"
#include "../runtime/attach_abi.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516
#define SLICE_US 300
#define STEPS_PER_SLICE 4096

static int in_ranges(const struct code_range *r, size_t n, uint64_t pc)
{
	for (size_t i = 0; i < n; i++)
		if (pc >= r[i].low && pc < r[i].high)
			return 1;
	return 0;
}

static int is_system_module(const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	static const char *const prefixes[] = {"libc.so", "libc-",	"ld-linux", "ld-2.",
					       "ld.so",	  "libpthread", "libdl.",   "libdl-"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return strcmp(path, "[vdso]") == 0;
}

int held_read_ranges(struct held_process *p, const char *runtime_path)
{
	char maps[64], line[4608];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)p->pid);
	FILE *f = fopen(maps, "re");
	if (!f)
		return -1;
	p->nsystem = p->nruntime = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long low, high;
		char perms[8], path[4096] = "";
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %4095[^\n]", &low, &high, perms, path) <
			3 ||
		    perms[2] != 'x')
			continue;
		struct code_range r = {low, high};
		if (runtime_path && strcmp(path, runtime_path) == 0) {
			if (p->nruntime < sizeof(p->runtime) / sizeof(p->runtime[0]))
				p->runtime[p->nruntime++] = r;
		} else if (is_system_module(path) && p->nsystem < INJECT_RANGES) {
			p->system[p->nsystem++] = r;
		}
	}
	fclose(f);
	return 0;
}

static int waits(long nr)
{
	static const long waiting[] = {
	    SYS_read,	     SYS_readv,	  SYS_pread64,	  SYS_write,	       SYS_writev,
	    SYS_recvfrom,    SYS_recvmsg, SYS_sendto,	  SYS_sendmsg,	       SYS_accept,
	    SYS_accept4,     SYS_connect, SYS_nanosleep,  SYS_clock_nanosleep, SYS_pause,
	    SYS_poll,	     SYS_ppoll,	  SYS_select,	  SYS_pselect6,	       SYS_epoll_wait,
	    SYS_epoll_pwait, SYS_wait4,	  SYS_waitid,	  SYS_rt_sigsuspend,   SYS_rt_sigtimedwait,
	    SYS_futex,	     SYS_msgrcv,  SYS_semtimedop, SYS_io_getevents,    SYS_restart_syscall,
	};
	for (size_t i = 0; i < sizeof(waiting) / sizeof(waiting[0]); i++)
		if (waiting[i] == nr)
			return 1;
	return 0;
}

/* Blocked in a waiting system call when it was stopped: the kernel will
 * restart it. */
static int blocked_waiting(const struct user_regs_struct *r)
{
	long nr = (long)r->orig_rax, rv = (long)r->rax;
	int interrupted = rv == -ERESTARTSYS || rv == -ERESTARTNOINTR || rv == -ERESTARTNOHAND ||
			  rv == -ERESTART_RESTARTBLOCK;
	return nr >= 0 && interrupted && waits(nr);
}

uint32_t held_runtime_generation(struct held_process *p, const struct held_thread *t)
{
	if (!p->have_gen || !t->regs.fs_base)
		return 0;
	uint32_t gen = 0;
	struct iovec local = {&gen, sizeof(gen)};
	struct iovec remote = {(void *)(uintptr_t)(t->regs.fs_base + (int64_t)p->gen_offset),
			       sizeof(gen)};
	if (process_vm_readv(p->pid, &local, 1, &remote, 1, 0) != (ssize_t)sizeof(gen))
		return 0;
	return gen;
}

static int runtime_generation_busy(struct held_process *p, const struct held_thread *t)
{
	uint32_t gen = held_runtime_generation(p, t);
	return gen == ATTACH_GEN_BUSY || gen == ATTACH_GEN_INTERNAL;
}

enum thread_spot thread_spot(struct held_process *p, const struct held_thread *t)
{
	if (t->gone || t->exiting || t->group_stop || !t->stopped)
		return SPOT_UNUSABLE;
	uint64_t pc = t->regs.rip;
	if (in_ranges(p->runtime, p->nruntime, pc) || runtime_generation_busy(p, t))
		return SPOT_RUNTIME;
	if (blocked_waiting(&t->regs))
		return SPOT_WAITING;
	return in_ranges(p->system, p->nsystem, pc) ? SPOT_SYSTEM : SPOT_PROGRAM;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int held_schedstat(pid_t pid, pid_t tid, uint64_t *ran_ns, uint64_t *waited_ns)
{
	char path[64];
	unsigned long long ran = 0, waited = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, (int)tid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	int n = fscanf(f, "%llu %llu", &ran, &waited);
	fclose(f);
	if (n != 2)
		return -1;
	*ran_ns = ran;
	*waited_ns = waited;
	return 0;
}

/* The CPU time a thread has run, in ns; 0 when unknown. */
static uint64_t thread_ran_ns(pid_t pid, pid_t tid)
{
	uint64_t ran, waited;
	return held_schedstat(pid, tid, &ran, &waited) == 0 ? ran : 0;
}

/* The budgets count what the threads did, not the time that passed: on a
 * busy machine a resumed thread may wait long for a CPU, and a wall-clock
 * budget would run out before it ran at all.  The wall clock (or the time
 * the threads were given) still bounds them, at WALL_FACTOR times (a thread
 * blocked inside never runs). */
#define WALL_FACTOR 8
/* Steps and slices a thread is given per millisecond of its budget (an
 * idle machine steps one in 5 to 10 us). */
#define MOVES_PER_MS 150

/* A thread is stepped out, one instruction at a time, and run for a
 * slice only when that takes long (a loop inside the C library): a slice
 * ends where the kernel sees the interrupt, which on some machines is only
 * the next system call, back inside the C library. */
int bring_to_safe_spot(struct held_process *p, struct held_thread *t, unsigned budget_ms)
{
	uint64_t wall_end = now_ms() + (uint64_t)budget_ms * WALL_FACTOR;
	uint64_t most = (uint64_t)budget_ms * MOVES_PER_MS;
	for (uint64_t moves = 1;; moves++) {
		enum thread_spot s = thread_spot(p, t);
		if (s == SPOT_PROGRAM || s == SPOT_WAITING)
			return 0;
		if (s == SPOT_UNUSABLE || moves > most || now_ms() >= wall_end)
			return -1;
		int rc = moves % STEPS_PER_SLICE ? held_step_alone(p, t)
						 : held_run_alone(p, t, SLICE_US);
		if (rc < 0)
			return -1;
	}
}

/* Resumes the threads inside the runtime; whether there was one.  What
 * they had run so far goes to `ran_ns`, per thread. */
static int resume_inside(struct held_process *p, uint64_t *ran_ns, size_t max)
{
	int inside = 0;
	for (size_t i = 0; i < p->nthreads; i++) {
		int in = thread_spot(p, &p->threads[i]) == SPOT_RUNTIME;
		if (i < max)
			ran_ns[i] = in ? thread_ran_ns(p->pid, p->threads[i].tid) : 0;
		if (in) {
			inside = 1;
			held_resume(p, &p->threads[i]);
		}
	}
	return inside;
}

/* The CPU time the threads resumed by resume_inside ran since, in ns;
 * -1 when unknown. */
static int64_t ran_since(struct held_process *p, const uint64_t *ran_ns, size_t n)
{
	int64_t ran = 0, known = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t now = ran_ns[i] ? thread_ran_ns(p->pid, p->threads[i].tid) : 0;
		known |= now != 0;
		ran += now > ran_ns[i] ? (int64_t)(now - ran_ns[i]) : 0;
	}
	return known ? ran : -1;
}

int bring_out_of_runtime(struct held_process *p, unsigned budget_ms)
{
	enum { COUNTED = 64 };
	uint64_t ran_ns[COUNTED], given_us = 0, budget_us = (uint64_t)budget_ms * 1000;
	int64_t ran_total = -1;
	/* A signal delivered at each resume would keep a thread in its handler,
	 * above the runtime's code, for as long as they come; and one pending
	 * at each resume (a timer's) would stop it before its first
	 * instruction: they wait, blocked. */
	p->hold_signals = 1;
	int rc = -1;
	/* Slices grow to a millisecond; while the threads get less than half
	 * of theirs (a busy machine), to a tenth of a second: a thread stopped
	 * before it was scheduled has not moved. */
	for (unsigned slice = 50; rc < 0;) {
		/* All of them together: one may wait for a lock another holds. */
		size_t n = p->nthreads < COUNTED ? p->nthreads : COUNTED;
		if (!resume_inside(p, ran_ns, COUNTED)) {
			rc = 0;
			break;
		}
		struct timespec nap = {slice / 1000000, (long)(slice % 1000000) * 1000};
		nanosleep(&nap, NULL);
		given_us += slice;
		int stopped = held_stop_all(p) == 0;
		int64_t ran = ran_since(p, ran_ns, n);
		if (ran >= 0)
			ran_total = (ran_total < 0 ? 0 : ran_total) + ran;
		uint64_t used_us = ran_total >= 0 ? (uint64_t)ran_total / 1000 : given_us;
		if (!stopped || used_us >= budget_us || given_us >= budget_us * WALL_FACTOR)
			break;
		unsigned most =
		    ran < 0 || 2 * (uint64_t)ran >= (uint64_t)slice * 1000 ? 1000 : 100000;
		slice = 2 * slice < most ? 2 * slice : most;
	}
	if (!p->exited)
		held_release_signals(p);
	return rc;
}
