/*
 * special_functions.c - functions no engine may take the return address
 * of (every engine swaps it for a way back into the tracer): those that
 * keep or read their own return address would save the swapped one
 * (setjmp, getcontext: a later longjmp would "return" into the tracer with
 * no call open) or not know their caller (dlsym's RTLD_NEXT, dlopen's
 * namespace); vfork returns twice on one stack, first in the child.
 * Nor may any engine take the "return address" of a fragment that is
 * jumped into, never called: what lies at its stack top is its function's
 * own data.
 */
#include "special_functions.h"

#include <stdint.h>
#include <string.h>

static const char *const return_address_users[] = {
    "setjmp",	     "_setjmp",	     "__setjmp",    "sigsetjmp",	  "__sigsetjmp",
    "getcontext",    "__getcontext", "swapcontext", "__swapcontext",	  "dlopen",
    "dlmopen",	     "dlsym",	     "dlvsym",	    "__libc_dlopen_mode", "__libc_dlsym",
    "__libc_dlvsym", "__dlopen",     "__dlsym",	    "__dlvsym",		  "vfork",
    "__vfork",
};

#define NUSERS (sizeof(return_address_users) / sizeof(*return_address_users))

/* Whether a name with this first byte may be one of them: asked of every
 * function a process marks and of every library call's slot (bash: 2,300
 * names), most of which no entry shares a first byte with.  Built at the
 * first question (the same bytes by whichever thread, so a race is
 * harmless). */
static int first_byte_used(unsigned char c)
{
	static uint8_t used[256];
	static int built;
	if (!__atomic_load_n(&built, __ATOMIC_ACQUIRE)) {
		for (size_t i = 0; i < NUSERS; i++)
			__atomic_store_n(&used[(unsigned char)return_address_users[i][0]], 1,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&built, 1, __ATOMIC_RELEASE);
	}
	return __atomic_load_n(&used[c], __ATOMIC_RELAXED);
}

int patch_keeps_return_address(const char *name)
{
	if (!first_byte_used((unsigned char)name[0]))
		return 0;
	for (size_t i = 0; i < NUSERS; i++)
		if (name[0] == return_address_users[i][0] &&
		    strcmp(name, return_address_users[i]) == 0)
			return 1;
	return 0;
}

/* GCC's hot/cold splitting moves a function's unlikely paths into
 * `NAME.cold` (`NAME.cold.N`), a symbol of its own entered by a jump with
 * the function's frame still in place. */
int patch_is_fragment(const char *name)
{
	return strstr(name, ".cold") != NULL;
}
