/*
 * main.c - the multi-module test program: calls into a static library, a
 * shared library and a dlopen'd plugin (unloaded before the end), forks a
 * child that ends with exit() and one that ends with _exit(), and runs two
 * threads with distinct call chains.  The call structure and the output are
 * deterministic.
 *
 * Usage: multimod PLUGIN.so
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "shared.h"
#include "static.h"

static int use_static(int x)
{
	int sq = st_square(x);
	return st_add(sq, 1);
}

static int use_shared(int x)
{
	return sh_scale(x, 3);
}

static int use_plugin(const char *path, int x)
{
	void *handle = dlopen(path, RTLD_NOW);
	if (!handle) {
		fprintf(stderr, "multimod: %s\n", dlerror());
		exit(2);
	}
	int (*entry)(int) = (int (*)(int))dlsym(handle, "pl_entry");
	if (!entry) {
		fprintf(stderr, "multimod: %s\n", dlerror());
		exit(2);
	}
	int result = entry(x);
	dlclose(handle);
	return result;
}

static int wait_child(pid_t pid)
{
	int status = 0;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void child_exit_work(void)
{
	int sum = st_add(1, 2);
	printf("child (exit): %d\n", sh_scale(sum, 2));
}

static void child_quick_work(void)
{
	int v = sh_clamp(500);
	dprintf(STDOUT_FILENO, "child (_exit): %d\n", v);
}

static int fork_exit_child(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_exit_work();
		exit(0);
	}
	return wait_child(pid);
}

static int fork_quick_exit_child(void)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		child_quick_work();
		_exit(0);
	}
	return wait_child(pid);
}

static int a_step(int x)
{
	return st_square(x);
}

static int b_step(int x)
{
	return sh_clamp(x);
}

static void *thread_a_main(void *arg)
{
	int *out = arg;
	*out = a_step(4);
	return NULL;
}

static void *thread_b_main(void *arg)
{
	int *out = arg;
	*out = b_step(-5);
	return NULL;
}

static void run_threads(int *a, int *b)
{
	pthread_t ta, tb;
	pthread_create(&ta, NULL, thread_a_main, a);
	pthread_create(&tb, NULL, thread_b_main, b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: multimod PLUGIN.so\n");
		return 2;
	}
	int s = use_static(3);
	printf("static: %d\n", s);
	int h = use_shared(s);
	printf("shared: %d\n", h);
	int p = use_plugin(argv[1], h);
	printf("plugin: %d\n", p);
	int e1 = fork_exit_child();
	printf("exit child status: %d\n", e1);
	int e2 = fork_quick_exit_child();
	printf("_exit child status: %d\n", e2);
	int a = 0, b = 0;
	run_threads(&a, &b);
	printf("threads: %d %d\n", a, b);
	return 0;
}
