/* static.h - the static library of the multi-module test program. */
#ifndef MULTIMOD_STATIC_H
#define MULTIMOD_STATIC_H

int st_square(int x);
int st_add(int a, int b);

#endif
