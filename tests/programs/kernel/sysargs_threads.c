/*
 * sysargs_threads.c - system calls whose copied arguments say which thread
 * made them, from many threads at once, for the test that each copy goes
 * with its own call (kernel_args_threads.sh).
 *
 * The main thread first opens a path that lies in a page of a file mapped
 * and never touched: it cannot be read at the call, and is read at the
 * return.  Then THREADS threads, started together, each make ROUNDS times:
 * write(fd of /dev/null, "t<i>:<k>", ...) and pread64(fd of FILE<i>, buf,
 * 16, 0), FILE<i> holding "file<i>" (each thread its own file).
 *
 * usage: sysargs_threads THREADS ROUNDS DIR   (DIR holds file0.. and path)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int rounds;
static const char *dir;
static pthread_barrier_t start;

static void *work(void *arg)
{
	int i = (int)(long)arg;
	char name[4096], buf[32];
	snprintf(name, sizeof(name), "%s/file%d", dir, i);
	int in = open(name, O_RDONLY), out = open("/dev/null", O_WRONLY);
	if (in < 0 || out < 0)
		exit(1);
	pthread_barrier_wait(&start);
	for (int k = 0; k < rounds; k++) {
		int n = snprintf(buf, sizeof(buf), "t%d:%d", i, k);
		if (write(out, buf, (size_t)n) != n || pread(in, buf, 16, 0) <= 0)
			exit(1);
	}
	close(in);
	close(out);
	return NULL;
}

/* openat of a path in a mapped page not touched yet. */
static void untouched_path(void)
{
	char name[4096];
	snprintf(name, sizeof(name), "%s/path", dir);
	int fd = open(name, O_RDONLY);
	const char *p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		exit(1);
	int got = (int)syscall(SYS_openat, AT_FDCWD, p, O_RDONLY);
	if (got >= 0)
		close(got);
	munmap((void *)p, 4096);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	int threads = atoi(argv[1]);
	rounds = atoi(argv[2]);
	dir = argv[3];
	if (threads < 1 || threads > 64)
		return 2;
	untouched_path();
	pthread_t t[64];
	pthread_barrier_init(&start, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, work, (void *)(long)i);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
