/*
 * call_values.h - a call's argument and return values as the views show
 * them: `a=40, b=2` and `42` as C, or JSON (`[{"name", "type", "value"}]`,
 * `{"type", "value"}`), from the tagged values the walker hands over
 * (walk_event.values) and the function's DWARF signature, read once per
 * function; a library call's or system call's (symbol.proto, symbol.kind)
 * from its built-in prototype, as strace writes them
 * (`"/etc/passwd", O_RDONLY` and `-1 ENOENT (No such file or directory)`;
 * see proto_values.h).
 */
#ifndef CALLTRACE_CALL_VALUES_H
#define CALLTRACE_CALL_VALUES_H

#include <stdint.h>
#include "../symbols/symbols.h"
#include "value_format.h"

struct call_values;

struct call_values *call_values_new(void);
void call_values_free(struct call_values *cv);
/* The ELF machine of the recorded programs (trace_file_header.machine):
 * system call numbers and a few flags depend on it.  0 (the default) is
 * x86-64. */
void call_values_set_machine(struct call_values *cv, uint32_t machine);

/* "a=40, b=2" (a variadic function's ends with ", ..."), into `o`; nothing
 * when no values were recorded (values NULL).  `ret` (NULL when not known
 * yet): the call's return values, which hold what a system call's
 * arguments pointed to at its return (the data read()). */
void call_values_args_c(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			const uint8_t *values, uint32_t len, const uint8_t *ret, uint32_t ret_len);
/* "42", into `o`; nothing when no value was recorded. */
void call_values_return_c(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			  const uint8_t *values, uint32_t len);
/* [{"name": "a", "type": "int", "value": 40}, ...] into `o`. */
void call_values_args_json(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			   const uint8_t *values, uint32_t len, const uint8_t *ret,
			   uint32_t ret_len);
/* {"type": "int", "value": 42} into `o`. */
void call_values_return_json(struct call_values *cv, struct value_out *o, const struct symbol *sym,
			     const uint8_t *values, uint32_t len);

#endif
