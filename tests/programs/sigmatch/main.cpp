/*
 * main.cpp - a signal handler makes the first call into a library loaded
 * with dlopen while the thread is inside malloc: the program's own malloc,
 * which holds its lock (as the C library's holds an arena's) while
 * SIGUSR1 comes.  Any malloc in the handler then finds the lock taken:
 * the program says "malloc entered again" and exits 3, where a real
 * malloc would hang.  main calls the library's sigsafe::Worker::run (by
 * its symbol) once from the handler, then once more itself.  Prints
 * "sigmatch 6 8".  Argument: the library's path.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern "C" void *__libc_malloc(size_t);
extern "C" void __libc_free(void *);

static volatile int locked, raise_inside;
static int (*run)(int);
static volatile int from_handler;

extern "C" __attribute__((no_instrument_function)) void *malloc(size_t n)
{
	if (locked) {
		static const char say[] = "malloc entered again\n";
		ssize_t unused = write(2, say, sizeof(say) - 1);
		(void)unused;
		_exit(3);
	}
	locked = 1;
	if (raise_inside) { /* the signal comes while the lock is held */
		raise_inside = 0;
		raise(SIGUSR1);
	}
	void *p = __libc_malloc(n);
	locked = 0;
	return p;
}

extern "C" __attribute__((no_instrument_function)) void free(void *p)
{
	__libc_free(p);
}

static void on_usr1(int sig)
{
	(void)sig;
	from_handler = run(2);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	void *lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 2;
	}
	run = (int (*)(int))dlsym(lib, "_ZN7sigsafe6Worker3runEi");
	if (!run)
		return 2;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise_inside = 1;
	void *p = malloc(16);
	free(p);
	printf("sigmatch %d %d\n", from_handler, run(3));
	return 0;
}
