/*
 * libcall_dladdr.c - dladdr() and dladdr1() as a program would see them
 * untraced, for the pointers dlsym() gave it: those are trampolines
 * (libcall_code.c), in no module, so that the calls through them are
 * recorded.  Asked about one, the C library's dladdr is asked about the
 * function it stands for, and the symbol's address it finds is given back
 * as the pointer the program holds: dladdr(dlsym(h, "f")) names f, in its
 * library, starting there, as it does untraced.  (That pointer still
 * differs from &f taken otherwise; the man page says so.)
 */
#include "../runtime.h"
#include "libcall.h"

#include <dlfcn.h>

typedef int (*dladdr_fn)(const void *, Dl_info *);
typedef int (*dladdr1_fn)(const void *, Dl_info *, void **, int);

/* The symbol found for `target` is shown where the program's pointer is. */
static void as_held(Dl_info *info, uint64_t held, uint64_t target)
{
	if (held != target && info->dli_saddr == (void *)target)
		info->dli_saddr = (void *)held;
}

RUNTIME_EXPORT int dladdr(const void *address, Dl_info *info)
{
	static dladdr_fn real;
	if (!real)
		real = (dladdr_fn)dlsym(RTLD_NEXT, "dladdr");
	if (!real)
		return 0;
	uint64_t target = runtime_libcall_unwrap_pointer((uint64_t)address);
	int found = real((const void *)target, info);
	if (found)
		as_held(info, (uint64_t)address, target);
	return found;
}

RUNTIME_EXPORT int dladdr1(const void *address, Dl_info *info, void **extra, int flags)
{
	static dladdr1_fn real;
	if (!real)
		real = (dladdr1_fn)dlsym(RTLD_NEXT, "dladdr1");
	if (!real)
		return 0;
	uint64_t target = runtime_libcall_unwrap_pointer((uint64_t)address);
	int found = real((const void *)target, info, extra, flags);
	if (found)
		as_held(info, (uint64_t)address, target);
	return found;
}
