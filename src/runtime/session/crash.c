/*
 * crash.c - a fatal signal leaves a crash record in the trace: the signal,
 * its code, the faulting address and the instruction pointer.  The calls
 * open at that moment are the crashing thread's stack, which the trace
 * already holds.
 *
 * The handler then puts back the handler that was there before (the
 * program's own, or the default) and lets the signal take its course, so
 * the program dies, or recovers, exactly as it would have.  It runs on the
 * thread's alternate signal stack (threads.c gives one), so that a stack
 * overflow is reported too, and said to be one: the fault address against
 * the stack's mapping in /proc/self/maps (utils/stack_overflow.h).  A fault
 * in the in-process engine's own code is charged to the program's function
 * it was entering (crash_site.c).
 *
 * One SIGBUS is the runtime's own: a window of the trace file that the file
 * no longer backs (someone truncated the trace, or the disk filled up under
 * a file system that cannot reserve space).  Then the window is replaced by
 * anonymous memory, recording stops, and the program goes on.
 */
#include "../runtime.h"
#include "../../arch/arch.h"
#include "../filters/time_filter.h"
#include "../../utils/stack_overflow.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP};
#define NFATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))
static struct sigaction previous[NFATAL];

static int signal_slot(int sig)
{
	for (size_t i = 0; i < NFATAL; i++)
		if (fatal_signals[i] == sig)
			return (int)i;
	return -1;
}

static int inside(const void *address, const void *start, size_t len)
{
	return start && (const char *)address >= (const char *)start &&
	       (const char *)address < (const char *)start + len;
}

/* Whether `address` is in the trace file's header page or this thread's
 * window; if so, they no longer fault. */
static int recover_trace_fault(const void *address)
{
	struct trace_stream *st = &runtime_thread.stream;
	void *start;
	size_t len;
	if (inside(address, runtime_session.header, TRACE_HEADER_SIZE)) {
		start = runtime_session.header;
		len = TRACE_HEADER_SIZE;
	} else if (inside(address, st->map, st->map_len)) {
		start = st->map;
		len = st->map_len;
	} else {
		return 0;
	}
	runtime_session.broken = 1;
	if (mmap(start, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1,
		 0) == MAP_FAILED)
		return 0;
	runtime_stop_for_good("the trace file lost its space (truncated, or its disk is full)");
	return 1;
}

/* Without the tool: the open calls of the crashing thread as addresses,
 * a run of calls of one function (a recursion) on one line. */
static void say_open_calls(void)
{
	const struct trace_stream *st = &runtime_thread.stream;
	uint32_t depth = st->depth < st->open_cap ? st->depth : st->open_cap;
	if (!st->open_calls || depth == 0)
		return;
	runtime_say("calls open at the crash (innermost first; %s):", runtime_tool_missing());
	for (uint32_t i = depth; i-- > 0;) {
		uint64_t address = st->open_calls[i].address;
		uint32_t run = 1;
		while (i > 0 && st->open_calls[i - 1].address == address) {
			i--;
			run++;
		}
		if (run == 1)
			runtime_say("  #%u %#llx", depth - 1 - i, (unsigned long long)address);
		else
			runtime_say("  #%u %#llx  (\u00d7%u frames)", depth - i - run,
				    (unsigned long long)address, run);
	}
}

static void stack_fault_each_line(const char *line, void *scan)
{
	stack_fault_line(scan, line);
}

/* Whether a fault at `address` with the stack pointer at `sp` is the
 * thread's stack overflowing. */
static int is_stack_overflow(uint64_t address, uint64_t sp)
{
	struct stack_fault_scan scan;
	stack_fault_begin(&scan, address, sp);
	return runtime_maps_each(stack_fault_each_line, &scan) == 0 &&
	       stack_fault_is_overflow(&scan);
}

/* The program dies of `sig`: its exit goes into the trace, then a short
 * report on stderr (by `calltrace crash`, for this process: the open calls
 * with their files and lines), and where to see more. */
static void say_fatal(int sig, uint32_t tid, const siginfo_t *info, uint32_t flags)
{
	if (runtime_patch_write_counts)
		runtime_patch_write_counts();
	trace_write_process(&runtime_session, PROCESS_EXIT, 0, 0, 128 + sig, NULL, NULL, 0);
	char pid[16];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	const char *const args[] = {"crash", "--pid", pid, runtime_session.path, NULL};
	if (runtime_tool_run_relayed(args) != 0) {
		char fault[48] = "";
		if (info->si_code > 0 && sig != SIGABRT && sig != SIGTRAP)
			snprintf(fault, sizeof(fault), ", fault address %#llx",
				 (unsigned long long)(uintptr_t)info->si_addr);
		runtime_say("process %s died of signal %d (%s) in thread %u%s%s", pid, sig,
			    sigdescr_np(sig), tid, fault,
			    flags & CRASH_STACK_OVERFLOW ? ": stack overflow" : "");
		say_open_calls();
	}
	runtime_say("see: calltrace crash %s", runtime_session.path);
	runtime_session_end();
}

/* The crash site (frames[0], and frames[1] the faulting instruction when
 * that was the tracer's) and the record's flags. */
static uint32_t crash_facts(int sig, const siginfo_t *info, const void *context, uint64_t frames[2],
			    uint32_t *nframes)
{
	uint32_t flags = 0;
	const ucontext_t *uc = context;
	uint64_t pc = arch_context_pc(uc);
	uint64_t sp = arch_context_sp(uc);
	int own_code = 0;
	uint64_t function =
	    runtime_crash_site_function
		? runtime_crash_site_function(pc, arch_context_trampoline_scratch(uc), &own_code)
		: 0;
	frames[0] = function ? function : pc;
	frames[1] = pc;
	*nframes = function ? 2 : (pc ? 1 : 0);
	if (function && !own_code) /* not the copy of its first instructions */
		flags |= CRASH_IN_TRACER;
	if (sig == SIGSEGV && info->si_code > 0 && is_stack_overflow((uint64_t)info->si_addr, sp))
		flags |= CRASH_STACK_OVERFLOW;
	return flags;
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
	int saved = errno;
	if (sig == SIGBUS && info->si_code > 0 && recover_trace_fault(info->si_addr)) {
		errno = saved;
		return; /* the instruction runs again, on memory of its own */
	}
	if ((sig == SIGSEGV || sig == SIGBUS) && info->si_code > 0) {
		errno = saved;
		runtime_probe_fault((uint64_t)info->si_addr); /* a read of readable.c's */
	}
	int slot = signal_slot(sig);
	uint64_t frames[2] = {0, 0};
	uint32_t nframes = 0, flags = crash_facts(sig, info, context, frames, &nframes);
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	uint32_t gen = runtime_thread.gen;
	if (runtime_time_filter_on && gen != 0 && gen == RUNTIME_LOAD(runtime_state)) {
		runtime_thread.gen = RUNTIME_GEN_BUSY; /* the calls held back are the stack */
		runtime_time_filter_flush(&runtime_thread, 1, trace_clock_tick());
		runtime_thread.gen = gen;
	}
	trace_write_crash(&runtime_session, tid, sig, info->si_code, (uint64_t)info->si_addr,
			  frames, nframes, flags);
	if (previous[slot].sa_handler == SIG_DFL && !(previous[slot].sa_flags & SA_SIGINFO)) {
		/* No handler of the program's: it dies now. */
		uint32_t gen = runtime_internal_begin(&runtime_thread);
		say_fatal(sig, tid, info, flags);
		runtime_internal_end(&runtime_thread, gen);
	}
	sigaction(sig, &previous[slot], NULL);
	if (info->si_code <= 0 || sig == SIGABRT || sig == SIGTRAP)
		raise(sig); /* sent, not caused by an instruction: send it again */
	/* A fault: returning re-runs the instruction under the old handler. */
	errno = saved;
}

/* The kernel's struct sigaction, read with the raw system call (the C
 * library's sigaction may be patched). */
struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

int runtime_crash_guard_installed(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS};
	for (int i = 0; i < 2; i++) {
		struct kernel_sigaction now;
		long rc = arch_syscall6(SYS_rt_sigaction, sigs[i], 0, (long)&now, 8, 0, 0);
		if (rc != 0 || now.handler != (void *)on_fatal_signal)
			return 0;
	}
	return 1;
}

void runtime_crash_handler_install(void)
{
	runtime_crash_guard = runtime_crash_guard_installed;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction old;
		if (sigaction(fatal_signals[i], NULL, &old) < 0)
			continue;
		/* The program handles (or ignores) it already: leave it alone. */
		if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL)
			continue;
		previous[i] = old;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

void runtime_crash_handler_remove(void)
{
	for (size_t i = 0; i < NFATAL; i++) {
		struct sigaction now;
		if (sigaction(fatal_signals[i], NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
		    now.sa_sigaction == on_fatal_signal)
			sigaction(fatal_signals[i], &previous[i], NULL);
	}
}
