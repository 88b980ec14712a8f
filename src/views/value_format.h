/*
 * value_format.h - argument and return values written as C programmers
 * write them (`-3`, `'x'`, `"hi\n"`, `GREEN`, `{x=1, y=2}`, `NULL`) and as
 * JSON, from the tagged values of EV_ARGS / EV_RETVAL (trace_format.h) and
 * the function's type descriptors (symbols/func_signature.h).
 *
 * The bytes come from a trace file that may be damaged: value_decode checks
 * every length, and the formatters never read past the bytes they are
 * given (what is missing is written `?`, or null in JSON).
 */
#ifndef CALLTRACE_VALUE_FORMAT_H
#define CALLTRACE_VALUE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../symbols/func_signature.h"
#include "value_out.h"

/* One decoded value: a trace_value_tag and the bytes that follow it. */
struct tagged_value {
	uint8_t tag;
	const uint8_t *bytes; /* into the buffer decoded; NULL when len is 0 */
	size_t len;
};

/* Reads the tagged value at p (len bytes there); returns the bytes it
 * took, or 0 when they are not one (unknown tag, a varint that is too long
 * or ends early, a length past the end). */
size_t value_decode(const uint8_t *p, size_t len, struct tagged_value *out);

/* A C++ reference whose object was read: its address, and true (JSON
 * gives the object as the value, the address beside it). */
bool value_reference_address(const struct ctype *type, const struct tagged_value *v,
			     uint64_t *address);

/* The value as C text.  `type` may be NULL (unknown: the bytes in hex);
 * a reference is "@0x...: object", as gdb writes it. */
void value_format_c(struct value_out *o, const struct ctype *type, const struct tagged_value *v);
/* The value as one JSON value: integers exact, floats shortest, bool,
 * null for a NULL pointer, strings for text, enum names, pointers ("0x..."),
 * things that are not numbers ("<optimized out>", "inf"); objects for
 * structs, arrays for arrays; a reference's object (else its address).  A
 * cut string ends with "...". */
void value_format_json(struct value_out *o, const struct ctype *type, const struct tagged_value *v);

#endif
