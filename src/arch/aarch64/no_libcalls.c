/*
 * no_libcalls.c (aarch64) - library calls (src/runtime/libcall/: the
 * calls through GOT slots) are recorded on x86-64 only for now: what the
 * shadow stack asks of them is here, for no call ever made, and the
 * runtime says so in one line under -v.
 */
#include "../../runtime/runtime.h"
#include "../../runtime/libcall/libcall.h"

#include <string.h>

uint64_t runtime_libcall_landing;

void runtime_libcall_return_stub(void)
{
}

void runtime_libcall_sweep(void)
{
}

void runtime_libcall_returned(struct libcall_site *site, uint64_t *registers, uint64_t *slot)
{
	(void)site, (void)registers, (void)slot;
}

void runtime_libcall_init(void)
{
	const char *v = runtime_getenv("CALLTRACE_PATCH_VERBOSE");
	const char *on = runtime_getenv("CALLTRACE_PATCH");
	if ((runtime_config.debug || (v && *v && strcmp(v, "0") != 0)) && on && *on &&
	    strcmp(on, "0") != 0 && runtime_config.libcall)
		runtime_say("library calls: recorded on x86-64 only for now (this is " ARCH_NAME
			    ")");
}
