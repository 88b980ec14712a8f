/*
 * threads.c - a thread's life in the trace: its stream is set up at its
 * first call, and closed (window length recorded, mapping released) when
 * the thread exits, so that memory stays bounded however many threads come
 * and go.
 */
#include "runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_key_t thread_end_key;

static void thread_end(void *unused)
{
	(void)unused;
	struct thread_state *t = &runtime_thread;
	char name[17] = "";
	prctl(PR_GET_NAME, name, 0, 0, 0); /* it may have been renamed since */
	trace_write_thread(&runtime_session, t->stream.tid, THREAD_END, name);
	t->phase = THREAD_DEAD;
	trace_stream_destroy(&t->stream);
}

void runtime_threads_init(void)
{
	pthread_key_create(&thread_end_key, thread_end);
}

/* A thread that names itself is named in the trace at once; one named by
 * another thread gets its name in the trace when it ends. */
RUNTIME_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
	static int (*real_setname)(pthread_t, const char *);
	if (!real_setname)
		real_setname =
		    (int (*)(pthread_t, const char *))dlsym(RTLD_NEXT, "pthread_setname_np");
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
	t->phase = THREAD_ACTIVE;
	prctl(PR_GET_NAME, name, 0, 0, 0);
	trace_write_thread(&runtime_session, tid, THREAD_START, name);
	if ((pid_t)tid != getpid())
		pthread_setspecific(thread_end_key, t);
	return 0;
}
