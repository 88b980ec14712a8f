/*
 * machines.c - names of the architectures traces are recorded on
 * (machines.h).
 */
#include "machines.h"

#include <elf.h>
#include <stdio.h>

const char *machine_name(uint32_t machine, char *buf, unsigned len)
{
	switch (machine) {
	case 0:
	case EM_X86_64:
		return "x86_64";
	case EM_AARCH64:
		return "aarch64";
	default:
		snprintf(buf, len, "machine %u", machine);
		return buf;
	}
}

const char *machine_counter_name(uint32_t machine)
{
	return machine == EM_AARCH64 ? "cntvct_el0" : "TSC";
}
