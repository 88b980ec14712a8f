/*
 * main.c - loads a plugin, calls it and unloads it, then does the same with
 * a second plugin of identical layout, which the dynamic loader most likely
 * puts at the address the first one had.  Prints both results, the
 * SIGTRAPs its handler counted (a plugin may run an int3 of its own:
 * tests/programs/patch/unload) and whether the two were loaded at the same
 * address.
 *
 * Usage: reuse PLUGIN_A.so PLUGIN_B.so
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t traps;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static int load_and_call(const char *path, const char *entry_name, int x, void **base)
{
	void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		fprintf(stderr, "reuse: %s\n", dlerror());
		exit(2);
	}
	int (*entry)(int) = (int (*)(int))dlsym(handle, entry_name);
	Dl_info info;
	if (!entry || !dladdr((void *)entry, &info)) {
		fprintf(stderr, "reuse: no %s in %s\n", entry_name, path);
		exit(2);
	}
	*base = info.dli_fbase;
	int result = entry(x);
	dlclose(handle);
	return result;
}

int main(int argc, char **argv)
{
	void *base_a, *base_b;
	if (argc != 3) {
		fprintf(stderr, "usage: reuse PLUGIN_A.so PLUGIN_B.so\n");
		return 2;
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	sigaction(SIGTRAP, &sa, NULL);
	int a = load_and_call(argv[1], "alpha_entry", 10, &base_a);
	int b = load_and_call(argv[2], "bravo_entry", 10, &base_b);
	printf("alpha %d, bravo %d, traps %d\n", a, b, (int)traps);
	printf("same address: %s\n", base_a == base_b ? "yes" : "no");
	return 0;
}
