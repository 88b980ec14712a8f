/*
 * host.c - library calls of every kind, for libcall_kinds.sh: into a
 * plugin it dlopens (argv[1]) and through the pointer dlsym gives
 * (plugin_work, which calls getpid itself); into libone, which calls
 * libtwo (a call between two libraries); into both versions of libver's
 * vfunc (symbol versioning); into memcpy and strlen, whose variant the
 * dynamic linker picks at start (IFUNC).  Prints what they return.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int one_call(int x);
int vfunc(void);
int vfunc_v1(void);
__asm__(".symver vfunc_v1, vfunc@VER_1");

static int use_plugin(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	if (!h)
		return -1;
	int (*work)(int) = (int (*)(int))dlsym(h, "plugin_work");
	int r = work ? work(3) + work(4) : -1;
	dlclose(h);
	return r;
}

static size_t use_ifuncs(const char *s)
{
	char buf[64];
	size_t n = strlen(s);
	memcpy(buf, s, n < sizeof(buf) ? n + 1 : 1);
	return strlen(buf);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int plugin = use_plugin(argv[1]);
	size_t n = use_ifuncs("ifunc");
	int nested = one_call(5);
	int v2 = vfunc(), v1 = vfunc_v1();
	printf("plugin %d ifunc %zu nested %d versions %d %d\n", plugin, n, nested, v1, v2);
	return 0;
}
