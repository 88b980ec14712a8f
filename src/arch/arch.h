/*
 * arch.h - the one interface to what differs per architecture: the target's
 * folder's arch.h (src/arch/<cpu>/arch.h says what each gives; target.h
 * picks the folder).
 */
#ifndef CALLTRACE_ARCH_DISPATCH_H
#define CALLTRACE_ARCH_DISPATCH_H

#include "target.h"
#include ARCH_HEADER(arch.h)

#endif
