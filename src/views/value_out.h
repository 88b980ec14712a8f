/*
 * value_out.h - where the value formatters (value_format.h) write: a FILE
 * or a growable NUL-terminated buffer, and the escaping of C and JSON
 * text into it.
 */
#ifndef CALLTRACE_VALUE_OUT_H
#define CALLTRACE_VALUE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where text goes: a FILE, or a growable NUL-terminated buffer. */
struct value_out {
	FILE *file; /* NULL: into buf */
	char *buf;
	size_t len, cap;
	bool failed; /* memory ran out: buf holds what fitted */
};

void value_out_init_file(struct value_out *o, FILE *f);
void value_out_init_buffer(struct value_out *o);
/* The buffer's text ("" when empty); the buffer starts again empty. */
const char *value_out_text(struct value_out *o);
void value_out_reset(struct value_out *o);
void value_out_free(struct value_out *o);
/* Writes s as it is; as a JSON string (quoted, escaped). */
void value_out_text_put(struct value_out *o, const char *s);
void value_out_json_text(struct value_out *o, const char *s);

/* Text as it is; one byte; printf-style (at most 127 bytes). */
void value_out_write(struct value_out *o, const char *s, size_t n);
void value_out_char(struct value_out *o, char c);
void value_out_printf(struct value_out *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A C character literal ('\n', '\x01'); a C string literal of n bytes,
 * "..." after it when the string was cut. */
void value_out_c_char(struct value_out *o, uint8_t c);
void value_out_c_string(struct value_out *o, const uint8_t *s, size_t n, bool cut);
/* A JSON string of n bytes (valid UTF-8 kept, other bytes as U+0080..U+00FF)
 * with `tail` added inside its quotes. */
void value_out_json_string(struct value_out *o, const uint8_t *s, size_t n, const char *tail);

#endif
