/*
 * value_out.c - where value text goes (a FILE, or a growable buffer), and
 * text written into it raw, printf-style, as a C character or string
 * literal (escaped so that it reads back the same) or as a JSON string.
 */
#include "value_out.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "../format/printable.h"

void value_out_init_file(struct value_out *o, FILE *f)
{
	memset(o, 0, sizeof(*o));
	o->file = f;
}

void value_out_init_buffer(struct value_out *o)
{
	memset(o, 0, sizeof(*o));
}

const char *value_out_text(struct value_out *o)
{
	return o->buf ? o->buf : "";
}

void value_out_reset(struct value_out *o)
{
	o->len = 0;
	o->failed = false;
	if (o->buf)
		o->buf[0] = '\0';
}

void value_out_free(struct value_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

void value_out_write(struct value_out *o, const char *s, size_t n)
{
	if (o->file) {
		fwrite_unlocked(s, 1, n, o->file);
		return;
	}
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 64;
		while (cap < o->len + n + 1)
			cap *= 2;
		char *grown = realloc(o->buf, cap);
		if (!grown) {
			o->failed = true;
			return;
		}
		o->buf = grown;
		o->cap = cap;
	}
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = '\0';
}

void value_out_text_put(struct value_out *o, const char *s)
{
	value_out_write(o, s, strlen(s));
}

void value_out_char(struct value_out *o, char c)
{
	value_out_write(o, &c, 1);
}

void value_out_printf(struct value_out *o, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		value_out_write(o, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
}

/* --- characters and strings --- */

/* The C escape of byte c inside quotes `quote`, or NULL when it is written
 * as it is. */
static const char *c_escape(uint8_t c, char quote)
{
	switch (c) {
	case '\n':
		return "\\n";
	case '\t':
		return "\\t";
	case '\r':
		return "\\r";
	case '\a':
		return "\\a";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\v':
		return "\\v";
	case '\\':
		return "\\\\";
	case '\0':
		return quote == '\'' ? "\\0" : NULL;
	case '\'':
		return quote == '\'' ? "\\'" : NULL;
	case '"':
		return quote == '"' ? "\\\"" : NULL;
	}
	return NULL;
}

void value_out_c_char(struct value_out *o, uint8_t c)
{
	const char *esc = c_escape(c, '\'');
	value_out_char(o, '\'');
	if (esc)
		value_out_text_put(o, esc);
	else if (c < 0x20 || c >= 0x7f)
		value_out_printf(o, "\\x%02x", c);
	else
		value_out_char(o, (char)c);
	value_out_char(o, '\'');
}

static bool is_hex_digit(uint8_t c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A C string literal; a hex escape followed by a hex digit closes and
 * reopens the literal ("\x01" "a") so that it reads back the same. */
void value_out_c_string(struct value_out *o, const uint8_t *s, size_t n, bool cut)
{
	value_out_char(o, '"');
	for (size_t i = 0; i < n;) {
		const char *esc = s[i] == '\0' ? "\\0" : c_escape(s[i], '"');
		size_t seq = s[i] >= 0x80 ? utf8_sequence(s + i, n - i) : 0;
		if (esc) {
			value_out_text_put(o, esc);
			if (s[i] == '\0' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7')
				value_out_text_put(o, "\" \"");
		} else if (seq) {
			value_out_write(o, (const char *)s + i, seq);
			i += seq;
			continue;
		} else if (s[i] < 0x20 || s[i] >= 0x7f) {
			value_out_printf(o, "\\x%02x", s[i]);
			if (i + 1 < n && is_hex_digit(s[i + 1]))
				value_out_text_put(o, "\" \"");
		} else {
			value_out_char(o, (char)s[i]);
		}
		i++;
	}
	value_out_char(o, '"');
	if (cut)
		value_out_text_put(o, "...");
}

/* A JSON string of n bytes: valid UTF-8 kept, other bytes as the code
 * points U+0080..U+00FF. */
void value_out_json_string(struct value_out *o, const uint8_t *s, size_t n, const char *tail)
{
	value_out_char(o, '"');
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t seq = c >= 0x80 ? utf8_sequence(s + i, n - i) : 0;
		if (seq) {
			value_out_write(o, (const char *)s + i, seq);
			i += seq;
			continue;
		}
		if (c == '"' || c == '\\')
			value_out_printf(o, "\\%c", c);
		else if (c == '\n')
			value_out_text_put(o, "\\n");
		else if (c == '\t')
			value_out_text_put(o, "\\t");
		else if (c == '\r')
			value_out_text_put(o, "\\r");
		else if (c < 0x20 || c >= 0x7f)
			value_out_printf(o, "\\u%04x", c);
		else
			value_out_char(o, (char)c);
		i++;
	}
	value_out_text_put(o, tail);
	value_out_char(o, '"');
}

void value_out_json_text(struct value_out *o, const char *s)
{
	value_out_json_string(o, (const uint8_t *)s, strlen(s), "");
}
