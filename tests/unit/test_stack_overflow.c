/*
 * test_stack_overflow.c - the stack-overflow verdict of a fault
 * (src/utils/stack_overflow.h) on memory maps written out: a fault in the
 * gap below the main thread's stack or in a thread's guard, near the stack
 * pointer, is one; a NULL pointer, a write to read-only memory, a fault in
 * a guard that no stack sits on, or one far below the stack pointer is not.
 */
#include "../../src/utils/stack_overflow.h"

#include <stdio.h>

#include "check.h"

static const char *const maps[] = {
    "555555554000-555555556000 r--p 00000000 08:01 1234 /usr/bin/prog",
    "555555556000-555555558000 r-xp 00002000 08:01 1234 /usr/bin/prog",
    "7ffff7000000-7ffff7001000 ---p 00000000 00:00 0",
    "7ffff7001000-7ffff7801000 rw-p 00000000 00:00 0",
    "7ffff7900000-7ffff7901000 ---p 00000000 00:00 0",
    "7ffff7a00000-7ffff7a10000 r--p 00000000 08:01 99 /usr/lib/libc.so.6",
    "7ffffffde000-7ffffffff000 rw-p 00000000 00:00 0 [stack]",
    NULL,
};

static int verdict(uint64_t fault, uint64_t sp)
{
	struct stack_fault_scan scan;
	stack_fault_begin(&scan, fault, sp);
	for (const char *const *line = maps; *line; line++)
		stack_fault_line(&scan, *line);
	return stack_fault_is_overflow(&scan);
}

int main(void)
{
	/* The main thread: below [stack], the stack pointer just above. */
	CHECK(verdict(0x7ffffffddff8, 0x7ffffffde000) == 1, "push below [stack]");
	CHECK(verdict(0x7ffffffdd000, 0x7ffffffdd000) == 1,
	      "a big frame's store at the stack pointer");
	/* A thread: its guard page right below its stack. */
	CHECK(verdict(0x7ffff7000ff8, 0x7ffff7001000) == 1, "push into a thread's guard");
	CHECK(verdict(0x7ffff7000100, 0x7ffff7000108) == 1,
	      "the stack pointer in the guard already");
	/* Not the stack. */
	CHECK(verdict(0, 0x7ffffffde800) == 0, "a NULL pointer");
	CHECK(verdict(0x555555556010, 0x7ffffffde800) == 0, "a write to code");
	CHECK(verdict(0x7ffff7900010, 0x7ffff7900800) == 0, "a guard with no stack right above it");
	CHECK(verdict(0x7ffffffcd000, 0x7ffffffff000) == 0,
	      "64 KiB and more below the stack pointer");
	CHECK(verdict(0x7ffffffddff8, 0x7ffff7400000) == 0, "the stack pointer on another stack");
	CHECK(verdict(0x7ffffffff800, 0x7ffffffff000) == 0, "above every mapping");
	return CHECK_SUMMARY("test_stack_overflow");
}
