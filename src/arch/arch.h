/*
 * arch.h - the one interface to what differs per architecture: the target's
 * folder (src/arch/<cpu>/arch.h says what each gives), chosen here and only
 * here by the compiler's own macro, so that a file compiled alone (a test
 * helper) needs no include path, and no other file an #ifdef.
 */
#ifndef CALLTRACE_ARCH_DISPATCH_H
#define CALLTRACE_ARCH_DISPATCH_H

#if defined(__x86_64__)
#include "x86_64/arch.h"
#elif defined(__aarch64__)
#include "aarch64/arch.h"
#else
#error "calltrace: no src/arch/ folder for this architecture"
#endif

#endif
