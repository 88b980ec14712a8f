/* shared.h - the shared library (libshared.so) of the multi-module test program. */
#ifndef MULTIMOD_SHARED_H
#define MULTIMOD_SHARED_H

int sh_scale(int x, int k);
int sh_clamp(int x);

#endif
