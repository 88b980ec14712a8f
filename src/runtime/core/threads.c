/*
 * threads.c - a thread's life in the trace: its stream is set up at its
 * first call, and closed (window length recorded, mapping released) when
 * the thread exits, so that memory stays bounded however many threads come
 * and go.
 *
 * A call that comes after that (the C library's own clean-up calls the
 * program's free()) is counted as lost.
 *
 * Each thread also gets the small things the rest of the runtime needs: the
 * queue for calls its signal handlers make while a hook writes
 * (deferred.c), and an alternate signal stack when it has none, so that a
 * stack overflow still leaves a crash record (crash.c).
 */
#include "../runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ALTSTACK_SIZE (64u << 10)

static pthread_key_t thread_end_key;

/* A signal stack of the runtime's, unless the thread has one already. */
static void altstack_give(struct thread_state *t)
{
	stack_t old;
	if (sigaltstack(NULL, &old) < 0 || !(old.ss_flags & SS_DISABLE))
		return;
	void *mem =
	    mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return;
	stack_t ss = {.ss_sp = mem, .ss_size = ALTSTACK_SIZE, .ss_flags = 0};
	if (sigaltstack(&ss, NULL) < 0) {
		munmap(mem, ALTSTACK_SIZE);
		return;
	}
	t->altstack = mem;
}

/* Takes the runtime's signal stack back, if the thread still uses it. */
static void altstack_take_back(struct thread_state *t)
{
	if (!t->altstack)
		return;
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == t->altstack) {
		if (cur.ss_flags & SS_ONSTACK)
			return; /* running on it: leave it */
		stack_t off = {.ss_flags = SS_DISABLE};
		sigaltstack(&off, NULL);
	}
	munmap(t->altstack, ALTSTACK_SIZE);
	t->altstack = NULL;
}

static void deferred_queue_give(struct thread_state *t)
{
	void *mem = mmap(NULL, RUNTIME_DEFERRED_MAX * sizeof(struct deferred_call),
			 PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	t->deferred = mem == MAP_FAILED ? NULL : mem;
}

static void deferred_queue_take_back(struct thread_state *t)
{
	if (t->deferred)
		munmap(t->deferred, RUNTIME_DEFERRED_MAX * sizeof(struct deferred_call));
	t->deferred = NULL;
	t->ndeferred = 0;
}

/* Whether the thread's stream belongs to a session closed since (an
 * earlier attach's). */
static int stream_is_stale(const struct thread_state *t)
{
	return t->session_epoch != RUNTIME_LOAD(runtime_session_epoch) ||
	       runtime_session.header == NULL;
}

/* Forgets the stream's window without touching it: its file may have been
 * truncated since (the next attach wrote the same path), and a store into
 * it would fault. */
static void drop_window(struct thread_state *t)
{
	if (t->stream.map)
		munmap(t->stream.map, t->stream.map_len);
	trace_stream_abandon(&t->stream);
}

/* Other thread-specific destructors run after ours when their keys are
 * newer (a program's keys usually are), and may call instrumented code: so
 * the thread is ended only in a later round of destructors (the one before
 * the last: sanitizers end their own thread state in the last). */
static void thread_end(void *state)
{
	struct thread_state *t = &runtime_thread;
	if (++t->end_rounds < PTHREAD_DESTRUCTOR_ITERATIONS - 1) {
		pthread_setspecific(thread_end_key, state);
		return;
	}
	uint32_t gen = t->gen;
	if (gen != RUNTIME_GEN_INTERNAL && gen != RUNTIME_GEN_BUSY && t->ndeferred) {
		t->gen = RUNTIME_GEN_BUSY;
		runtime_deferred_flush(t);
	}
	t->gen = RUNTIME_GEN_INTERNAL;
	trace_own_begin();
	if (stream_is_stale(t)) {
		drop_window(t); /* an earlier attach's: nothing more goes there */
	} else {
		runtime_report_dropped(t);
		char name[17] = "";
		prctl(PR_GET_NAME, name, 0, 0, 0); /* it may have been renamed since */
		trace_write_thread(&runtime_session, t->stream.tid, THREAD_END, name);
	}
	t->phase = THREAD_DEAD;
	trace_stream_destroy(&t->stream);
	deferred_queue_take_back(t);
	altstack_take_back(t);
	if (runtime_args_pending)
		runtime_args_pending->thread_end(t);
	trace_own_end();
	t->gen = gen;
}

/* The C library cleans up after every destructor (__libc_thread_freeres),
 * and may call the program's own free() then: such a call comes after the
 * stream is closed, and is counted as lost, one record each. */
void runtime_thread_call_after_end(struct thread_state *t)
{
	if (!runtime_session.header || stream_is_stale(t) || RUNTIME_LOAD(runtime_state) == 0)
		return;
	int saved = errno;
	uint32_t gen = t->gen;
	t->gen = RUNTIME_GEN_INTERNAL;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	trace_write_thread(&runtime_session, t->stream.tid, THREAD_LOST_CALLS, "1");
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->gen = gen;
	errno = saved;
}

void runtime_threads_init(void)
{
	pthread_key_create(&thread_end_key, thread_end);
}

/* A thread that names itself is named in the trace at once; one named by
 * another thread gets its name in the trace when it ends. */
RUNTIME_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
	typedef int (*setname_fn)(pthread_t, const char *);
	static setname_fn real_setname_cached;
	setname_fn real_setname = __atomic_load_n(&real_setname_cached, __ATOMIC_ACQUIRE);
	if (!real_setname) {
		real_setname = (setname_fn)dlsym(RTLD_NEXT, "pthread_setname_np");
		__atomic_store_n(&real_setname_cached, real_setname, __ATOMIC_RELEASE);
	}
	if (!real_setname)
		return ENOSYS;
	int rc = real_setname(thread, name);
	struct thread_state *t = &runtime_thread;
	if (rc == 0 && pthread_equal(thread, pthread_self()) && t->phase == THREAD_ACTIVE) {
		int saved = errno;
		trace_write_thread(&runtime_session, t->stream.tid, THREAD_NAME, name);
		errno = saved;
	}
	return rc;
}

int runtime_thread_begin(struct thread_state *t)
{
	char name[17] = "";
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	if (trace_stream_init(&t->stream, &runtime_session, tid) < 0) {
		t->phase = THREAD_DEAD;
		return -1;
	}
	t->stream.on_define = runtime_module_check;
	t->session_epoch = RUNTIME_LOAD(runtime_session_epoch);
	t->start_gen = RUNTIME_LOAD(runtime_start_gen);
	t->module_epoch = RUNTIME_LOAD(runtime_module_epoch);
	deferred_queue_give(t);
	if (!runtime_attach_mode) /* for the crash handler, not installed then */
		altstack_give(t);
	t->phase = THREAD_ACTIVE;
	prctl(PR_GET_NAME, name, 0, 0, 0);
	trace_write_thread(&runtime_session, tid, THREAD_START, name);
	if ((pid_t)tid != getpid())
		pthread_setspecific(thread_end_key, t);
	return 0;
}

void runtime_thread_rejoin(struct thread_state *t)
{
	drop_window(t);
	trace_stream_destroy(&t->stream);
	deferred_queue_take_back(t);
	altstack_take_back(t);
	t->ndeferred = t->deferred_open = t->deferred_skip = t->dropped = 0;
	t->phase = THREAD_NEW;
	runtime_thread_begin(t);
}
