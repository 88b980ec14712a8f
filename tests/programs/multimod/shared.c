/* shared.c - the shared library linked at build time (libshared.so) of the
 * multi-module test program. */
#include "shared.h"

int sh_clamp(int x)
{
	if (x < 0)
		return 0;
	return x > 100 ? 100 : x;
}

int sh_scale(int x, int k)
{
	return sh_clamp(x * k);
}
