/*
 * glibc_jmpbuf.h - the stack pointer a glibc jmp_buf jumps to (x86-64).
 *
 * glibc keeps %rsp in __jmpbuf[6], mangled: xor'ed with the thread's
 * pointer guard (at %fs:0x30, in the thread control block) and rotated
 * left by 17 bits.  The runtime reads the guard of its own thread, the
 * dynamic engine that of a traced one.
 */
#ifndef CALLTRACE_GLIBC_JMPBUF_H
#define CALLTRACE_GLIBC_JMPBUF_H

#include <stdint.h>

#define GLIBC_JB_RSP 6			/* index of %rsp in __jmpbuf */
#define GLIBC_POINTER_GUARD_OFFSET 0x30 /* from the thread pointer (%fs base) */

static inline uint64_t glibc_demangle_pointer(uint64_t mangled, uint64_t guard)
{
	return (mangled >> 17 | mangled << 47) ^ guard;
}

#endif
