/*
 * syscall_values.h - what a system call's pointer arguments pointed to,
 * as the kernel collector copied it (trace_format.h: the pairs after the
 * registers in EV_ARGS and after the return in EV_RETVAL), written as
 * strace writes it: "/etc/passwd", "root:x:0:0:"..., {sa_family=AF_INET,
 * sin_port=htons(6379), sin_addr=inet_addr("127.0.0.1")}, {tv_sec=0,
 * tv_nsec=40000000}, {st_mode=S_IFREG|0644, st_size=1024, ...}, [3, 4],
 * ["true"]; the pointer in hex where the memory could not be read.
 */
#ifndef CALLTRACE_SYSCALL_VALUES_H
#define CALLTRACE_SYSCALL_VALUES_H

#include <stdbool.h>
#include <stdint.h>
#include "value_format.h"

/* A system call's recorded values: EV_ARGS and EV_RETVAL (NULL: not
 * known, as before its return). */
struct syscall_recorded {
	const uint8_t *args, *ret;
	uint32_t args_len, ret_len;
	uint32_t machine; /* ELF e_machine (0: x86-64) */
};

/* Writes argument `arg` (its proto_type `type`, its register `reg`) into
 * t from what was copied of it, and returns true; false when nothing was
 * (a trace written before copies, a NULL, a call that failed). */
bool syscall_value_text(struct value_out *t, const struct syscall_recorded *r, unsigned arg,
			uint8_t type, uint64_t reg);

#endif
