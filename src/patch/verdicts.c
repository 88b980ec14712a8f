/*
 * verdicts.c - what each patching verdict (patch.h) says, in the words of
 * `-v` and of the attach's report, whatever the architecture.
 */
#include "patch.h"

const char *patch_verdict_text(enum patch_verdict v)
{
	static const char *const text[PATCH_VERDICTS] = {
	    "patched",
	    "too short to hold a jump",
	    "instructions not decoded",
	    "a jump inside the function lands in its first bytes",
	    "an entry instruction that cannot be moved",
	    "no trampoline memory within reach",
	    "a thread stood in its first bytes",
	    "a call in its first bytes returns inside them",
	};
	return v < PATCH_VERDICTS ? text[v] : "?";
}
