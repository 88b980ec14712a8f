/*
 * thread_free.c - a program with its own malloc and free (passed on to the
 * C library's), and a thread that ends: the C library's clean-up at the
 * thread's exit calls this free() after every destructor.  It prints how
 * many free() calls the thread made after its function returned.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void __libc_free(void *p);

static __thread int returned;
static int late_frees;

void *malloc(size_t size)
{
	return __libc_malloc(size);
}

void free(void *p)
{
	if (returned)
		__atomic_add_fetch(&late_frees, 1, __ATOMIC_RELAXED);
	__libc_free(p);
}

static void *work(void *arg)
{
	free(malloc(100));
	returned = 1;
	return arg;
}

int main(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	printf("late frees: %d\n", late_frees);
	return 0;
}
