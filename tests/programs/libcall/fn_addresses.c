/*
 * fn_addresses.c - a program that takes the addresses of C library
 * functions it also calls: each must stay the library's own (the address
 * dladdr names in libc, the one another library sees), whatever records
 * the calls.  A -finstrument-functions build gives its hooks such an
 * address too, for inline copies of a library's functions.
 *
 * So must dladdr's answer for a pointer dlsym gives, which the runtime
 * makes a trampoline of, to record the calls through it.
 *
 * Prints, for each, the module and symbol dladdr finds at the address the
 * program took, and whether that address is where the symbol starts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

typedef void *fn_t;

static void show(const char *name, fn_t taken)
{
	Dl_info info = {0};
	const char *module = "?", *symbol = "?";
	if (dladdr(taken, &info) && info.dli_fname) {
		module = strrchr(info.dli_fname, '/') ? strrchr(info.dli_fname, '/') + 1
						      : info.dli_fname;
		symbol = info.dli_sname ? info.dli_sname : "?";
	}
	printf("%s: %s %s %s\n", name, module, symbol,
	       info.dli_saddr == taken ? "start" : "inside");
}

int main(void)
{
	/* Called through the PLT, their addresses never taken. */
	puts("addresses");
	printf("%d\n", getpid() > 0);
	show("strlen", (fn_t)&strlen);
	show("abs", (fn_t)&abs);
	show("qsort", (fn_t)&qsort);
	/* A pointer dlsym gives: called through (a library call to record),
	 * then named by dladdr as untraced. */
	long (*absolute)(long) = (long (*)(long))dlsym(RTLD_DEFAULT, "labs");
	printf("%ld\n", absolute ? absolute(-7) : 0);
	show("dlsym labs", (fn_t)absolute);
	return 0;
}
