/*
 * dlcycle.c - plugins loaded and unloaded many times.  Usage: dlcycle
 * CYCLES PLUGIN_A PLUGIN_B.  First CYCLES times: dlopen PLUGIN_A, call
 * a_entry() (which calls a_leaf()), dlclose it.  Then the address-reuse
 * case: PLUGIN_A is loaded, called once and closed, and PLUGIN_B (the same
 * layout, other names) is loaded, likely where PLUGIN_A was, and b_entry()
 * is called 3 times.  Prints the calls made, and on a second line whether
 * PLUGIN_B's load address was PLUGIN_A's ("reuse same" or "reuse
 * different").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*entry_fn)(int);

static void *open_plugin(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(1);
	}
	return h;
}

static entry_fn entry_of(void *h, const char *name)
{
	entry_fn f = (entry_fn)dlsym(h, name);
	if (!f) {
		fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
		exit(1);
	}
	return f;
}

static unsigned long load_base(void *h)
{
	struct link_map *map = NULL;
	if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map)
		return 0;
	return (unsigned long)map->l_addr;
}

static long cycle(const char *path, int i)
{
	void *h = open_plugin(path);
	long r = entry_of(h, "a_entry")(i);
	dlclose(h);
	return r;
}

static int reuse(const char *path_a, const char *path_b, long *sum)
{
	void *a = open_plugin(path_a);
	unsigned long base_a = load_base(a);
	*sum += entry_of(a, "a_entry")(1);
	dlclose(a);
	void *b = open_plugin(path_b);
	unsigned long base_b = load_base(b);
	entry_fn f = entry_of(b, "b_entry");
	for (int i = 0; i < 3; i++)
		*sum += f(i);
	dlclose(b);
	return base_a == base_b;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: dlcycle CYCLES PLUGIN_A PLUGIN_B\n");
		return 2;
	}
	int cycles = atoi(argv[1]);
	long sum = 0;
	for (int i = 0; i < cycles; i++)
		sum += cycle(argv[2], i);
	int same = reuse(argv[2], argv[3], &sum);
	printf("a_entry %d a_leaf %d b_entry 3 b_leaf 3 sum %ld\n", cycles + 1, cycles + 1, sum);
	printf("reuse %s\n", same ? "same" : "different");
	return 0;
}
