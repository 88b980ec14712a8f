/*
 * runtime.h - what the parts of libcalltrace.so share.
 *
 * The runtime lives inside the traced program: it is never instrumented,
 * never allocates on the hot path, and keeps errno as it found it.
 */
#ifndef CALLTRACE_RUNTIME_H
#define CALLTRACE_RUNTIME_H

#include <stdint.h>
#include "../format/trace_writer.h"

#define RUNTIME_EXPORT __attribute__((visibility("default")))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

enum thread_phase { THREAD_NEW = 0, THREAD_ACTIVE, THREAD_DEAD };

/* Everything a thread needs on the hot path; lives in initial-exec TLS. */
struct thread_state {
	struct trace_stream stream;
	uint32_t gen;	/* runtime_state this thread last saw */
	uint32_t phase; /* enum thread_phase */
	uint32_t dropped;
};

/* A thread's gen while the runtime works on its stream outside the fast
 * path: no runtime_state ever equals it (generations are even, and 1 is the
 * state before init), so a signal handler's hooks that interrupt that work
 * take the slow path, find the thread busy and drop their calls. */
#define RUNTIME_GEN_BUSY 3u
/* A thread's gen when its next hook must end the open calls first, as
 * after a stop/start; no runtime_state equals it either. */
#define RUNTIME_GEN_STALE 5u

extern __thread struct thread_state runtime_thread __attribute__((tls_model("initial-exec")));

/* 0: recording off; otherwise a generation that changes at every start,
 * so that threads notice a stop/start pair (see hooks.c). */
extern volatile uint32_t runtime_state;
extern uint32_t runtime_max_depth; /* UINT32_MAX: unlimited */
/* The depth below which the hooks' fast path writes: runtime_max_depth when
 * events are stamped with the TSC, which it reads inline; 0 (any other
 * clock, or before init) sends every call to the slow path. */
extern uint32_t runtime_fast_depth;

struct runtime_config {
	char output[4096];    /* CALLTRACE_OUTPUT */
	uint32_t max_depth;   /* CALLTRACE_MAX_DEPTH, 0 = unlimited */
	uint32_t window_size; /* CALLTRACE_BUFFER_SIZE */
	int start_off;	      /* CALLTRACE_START=off */
	int debug;	      /* CALLTRACE_DEBUG */
	int capture_args;     /* CALLTRACE_CAPTURE_ARGS (not recorded yet) */
};

extern struct runtime_config runtime_config;
extern struct trace_session runtime_session;

/* session.c */
int runtime_init(void); /* idempotent; 0 when recording can go on */
void runtime_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* config.c */
void runtime_config_load(struct runtime_config *c);
/* threads.c */
int runtime_thread_begin(struct thread_state *t);
void runtime_threads_init(void);
/* crash.c */
void runtime_crash_handler_install(void);
/* longjmp.c */
void runtime_longjmp_init(void);
/* modules.c */
void runtime_modules_scan(void);
void runtime_modules_forget(void); /* in a fork child: write them again */
void runtime_module_check(uint64_t address);

#endif
