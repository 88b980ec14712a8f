/*
 * patch_lock.c - the in-process engine's lock: a spin lock (taken around
 * the rare work of first calls and patching; a waiter yields), whose
 * owner is known so that a trap met under it by the runtime's own work
 * is told apart.  It is taken around fork, so that a child never
 * inherits it held by a thread that is not there; a vfork child shares
 * the parent's memory and takes it like any other thread.
 */
#include "patch_lock.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static int lock_word;
static pid_t lock_owner; /* the thread holding it */
/* The process whose fork holds the lock (fork_prepare): a fork child finds
 * it held by a process it is not, and takes it (the child's own fork
 * handlers may run before ours and make a first call). */
static pid_t fork_holder;

/* The thread's id, asked once (a fork child's thread asks again). */
static __thread pid_t own_tid __attribute__((tls_model("initial-exec")));

static pid_t thread_id(void)
{
	if (!own_tid)
		own_tid = (pid_t)syscall(SYS_gettid);
	return own_tid;
}

void runtime_patch_lock(void)
{
	pid_t self = thread_id();
	while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE)) {
		pid_t holder = __atomic_load_n(&fork_holder, __ATOMIC_ACQUIRE);
		if (holder && holder != (pid_t)syscall(SYS_getpid)) {
			fork_holder = 0;
			break;
		}
		syscall(SYS_sched_yield);
	}
	lock_owner = self;
}

void runtime_patch_unlock(void)
{
	lock_owner = 0;
	__atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE);
}

int runtime_patch_lock_mine(void)
{
	return __atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == thread_id();
}

static void fork_prepare(void)
{
	runtime_patch_lock();
	runtime_patch_before_fork();
	lock_owner = 0; /* held for the fork, by no thread's first call */
	__atomic_store_n(&fork_holder, (pid_t)syscall(SYS_getpid), __ATOMIC_RELEASE);
}

static void fork_parent(void)
{
	fork_holder = 0;
	runtime_patch_unlock();
}

static void fork_child(void)
{
	own_tid = 0;
	fork_holder = 0;
	runtime_patch_in_fork_child();
	runtime_patch_unlock();
}

/* At load: the fork handlers are there before any fork the program makes. */
__attribute__((constructor)) static void watch_forks(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}
