/*
 * proto_values.h - a library call's or system call's values written with
 * its built-in prototype (symbols/prototypes.h), as strace and ltrace
 * show them: `"/etc/passwd", O_RDONLY|O_CLOEXEC` and `3`, or
 * `-1 ENOENT (No such file or directory)` when the call failed; and as
 * JSON (`[{"name", "type", "value"}]`, `{"type", "value", "errno"}`).
 *
 * The values are the tagged values of EV_ARGS / EV_RETVAL (trace_format.h):
 * a library call's hold what its prototype says (strings and sockaddrs
 * copied), a system call's the raw registers and what the kernel collector
 * copied of what they point to (syscall_values.h: the JSON value is
 * strace's text then), else the pointers.  Damaged values are written `?`
 * (null in JSON).
 */
#ifndef CALLTRACE_PROTO_VALUES_H
#define CALLTRACE_PROTO_VALUES_H

#include <stdbool.h>
#include <stdint.h>
#include "../symbols/prototypes.h"
#include "value_format.h"

struct proto_call {
	const struct prototype *proto; /* NULL: an unknown system call (raw) */
	bool raw;		       /* a system call: registers only */
	uint32_t machine;	       /* ELF e_machine (0: x86-64) */
	/* A system call's EV_RETVAL, for what was copied at its return (NULL
	 * when not known: those arguments show as pointers). */
	const uint8_t *ret;
	uint32_t ret_len;
};

/* `"/etc/passwd", O_RDONLY|O_CLOEXEC` (a variadic function's end with
 * ", ..."); an unknown system call's as hex. */
void proto_values_args_c(struct value_out *o, const struct proto_call *call, const uint8_t *values,
			 uint32_t len);
/* `3`, `-1 ENOENT (No such file or directory)`, `NULL ENOMEM (...)`,
 * `35 EDEADLK (Resource deadlock avoided)`; nothing for void. */
void proto_values_return_c(struct value_out *o, const struct proto_call *call,
			   const uint8_t *values, uint32_t len);
/* [{"name": "path", "type": "const char *", "value": "/etc/passwd"}, ...] */
void proto_values_args_json(struct value_out *o, const struct proto_call *call,
			    const uint8_t *values, uint32_t len);
/* {"type": "int", "value": -1, "errno": "ENOENT"}, or null. */
void proto_values_return_json(struct value_out *o, const struct proto_call *call,
			      const uint8_t *values, uint32_t len);

#endif
