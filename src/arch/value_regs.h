/*
 * value_regs.h - the registers a capture plan reads values from
 * (symbols/func_signature.h), as the target's calling convention names
 * them: the target's folder's value_regs.h (target.h picks it), small
 * enough for every file that knows signatures (no intrinsics).
 */
#ifndef CALLTRACE_VALUE_REGS_DISPATCH_H
#define CALLTRACE_VALUE_REGS_DISPATCH_H

#include "target.h"
#include ARCH_HEADER(value_regs.h)

#endif
