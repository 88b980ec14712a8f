/*
 * machines.h - what the reading side says about the architecture a trace
 * was recorded on (trace_file_header.machine), whatever it runs on itself.
 */
#ifndef CALLTRACE_MACHINES_H
#define CALLTRACE_MACHINES_H

#include <stdint.h>

/* "x86_64", "aarch64", or "machine N" (in `buf`) for another ELF machine;
 * 0 is x86-64 (traces written before the header had the field). */
const char *machine_name(uint32_t machine, char *buf, unsigned len);

/* The name of the counter the runtime times calls with there ("TSC",
 * "cntvct_el0"). */
const char *machine_counter_name(uint32_t machine);

#endif
