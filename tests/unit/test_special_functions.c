/*
 * test_special_functions.c - the functions no engine may take the return
 * address of (src/patch/special_functions.c): each of them is found,
 * whatever its first byte; names that share a first byte or a
 * prefix with one, or differ only in case, are not; fragments are told by
 * their ".cold" part.
 */
#include "../../src/patch/special_functions.h"

#include <stddef.h>

#include "check.h"

int main(void)
{
	static const char *const users[] = {
	    "setjmp",	     "_setjmp",	     "__setjmp",    "sigsetjmp",	  "__sigsetjmp",
	    "getcontext",    "__getcontext", "swapcontext", "__swapcontext",	  "dlopen",
	    "dlmopen",	     "dlsym",	     "dlvsym",	    "__libc_dlopen_mode", "__libc_dlsym",
	    "__libc_dlvsym", "__dlopen",     "__dlsym",	    "__dlvsym",		  "vfork",
	    "__vfork"};
	for (size_t i = 0; i < sizeof(users) / sizeof(*users); i++)
		CHECK(patch_keeps_return_address(users[i]), "%s is not found", users[i]);
	static const char *const others[] = {
	    "main",    "set",	 "setjmpx", "sigset",	       "_start",       "__libc_", "dl",
	    "dlclose", "vforkx", "getenv",  "swapcontext_old", "Setjmp",       "DLOPEN",  "",
	    "g",       "__vfor", "xsetjmp", "_setjm",	       "__sigsetjmp2", "vfor"};
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++)
		CHECK(!patch_keeps_return_address(others[i]), "'%s' is taken for one", others[i]);
	CHECK(patch_is_fragment("parse_args.cold") && patch_is_fragment("f.cold.3") &&
		  !patch_is_fragment("cold_start"),
	      "fragments are the .cold parts");
	return CHECK_SUMMARY("test_special_functions");
}
