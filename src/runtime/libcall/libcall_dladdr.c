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

typedef int (*dladdr1_fn)(const void *, Dl_info *, void **, int);

/* The C library's dladdr1 asked about the function `address` stands for;
 * the symbol found for it is shown where the program's pointer is.  With
 * `flags` 0 it is dladdr (glibc's dladdr1 is dladdr then). */
static int answer(const void *address, Dl_info *info, void **extra, int flags)
{
	static dladdr1_fn real;
	if (!real)
		real = (dladdr1_fn)dlsym(RTLD_NEXT, "dladdr1");
	if (!real)
		return 0;
	uint64_t held = (uint64_t)address, target = runtime_libcall_unwrap_pointer(held);
	int found = real((const void *)target, info, extra, flags);
	if (found && held != target && info->dli_saddr == (void *)target)
		info->dli_saddr = (void *)held;
	return found;
}

RUNTIME_EXPORT int dladdr(const void *address, Dl_info *info)
{
	return answer(address, info, NULL, 0);
}

RUNTIME_EXPORT int dladdr1(const void *address, Dl_info *info, void **extra, int flags)
{
	return answer(address, info, extra, flags);
}
