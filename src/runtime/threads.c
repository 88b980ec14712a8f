/*
 * threads.c - a thread's life in the trace: its stream is set up at its
 * first call, and closed (window length recorded, mapping released) when
 * the thread exits, so that memory stays bounded however many threads come
 * and go.
 */
#include "runtime.h"

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
	trace_write_thread(&runtime_session, t->stream.tid, THREAD_END, NULL);
	t->phase = THREAD_DEAD;
	trace_stream_destroy(&t->stream);
}

void runtime_threads_init(void)
{
	pthread_key_create(&thread_end_key, thread_end);
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
