/*
 * printable.c - trace text made safe for a terminal (see printable.h).
 */
#include "printable.h"

#include <stdio.h>
#include <string.h>

size_t utf8_sequence(const uint8_t *p, size_t n)
{
	size_t need = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
	if (need == 0 || need > n || (p[0] >= 0xf8))
		return 0;
	for (size_t i = 1; i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	uint32_t cp = p[0] & (0x7f >> need);
	for (size_t i = 1; i < need; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	static const uint32_t least[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < least[need] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return need;
}

/* Whether the UTF-8 sequence at p is a C1 control (U+0080..U+009F), which
 * some terminals act on as they do on ESC [. */
static int is_c1(const uint8_t *p)
{
	return p[0] == 0xc2 && p[1] < 0xa0;
}

/* The next piece of the text at p (n > 0 bytes left) as it is printed:
 * its bytes (a character), or "\xHH" in esc; its length, and in *took the
 * bytes of p it stands for. */
static size_t next_piece(const uint8_t *p, size_t n, const char **piece, char esc[8], size_t *took)
{
	size_t seq = p[0] >= 0x80 ? utf8_sequence(p, n) : 0;
	*piece = (const char *)p;
	*took = 1;
	if (seq && !is_c1(p)) {
		*took = seq;
		return seq;
	}
	if (p[0] >= 0x20 && p[0] < 0x7f)
		return 1;
	snprintf(esc, 8, "\\x%02x", p[0]);
	*piece = esc;
	return 4;
}

/* The length of s made printable. */
static size_t printable_length(const uint8_t *p, size_t n)
{
	size_t total = 0;
	for (size_t i = 0, took; i < n; i += took) {
		const char *piece;
		char esc[8];
		total += next_piece(p + i, n - i, &piece, esc, &took);
	}
	return total;
}

const char *printable(const char *s, char *buf, size_t len)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s), used = 0;
	/* room for the NUL, and for "..." when it will not all fit */
	size_t reserve = printable_length(p, n) < len ? 1 : 4;
	for (size_t i = 0, took; i < n; i += took) {
		const char *piece;
		char esc[8];
		size_t size = next_piece(p + i, n - i, &piece, esc, &took);
		if (used + size + reserve > len) {
			if (used + 4 <= len) {
				memcpy(buf + used, "...", 3);
				used += 3;
			}
			break;
		}
		memcpy(buf + used, piece, size);
		used += size;
	}
	if (len)
		buf[used] = '\0';
	return buf;
}

void printable_put(FILE *f, const char *s)
{
	const uint8_t *p = (const uint8_t *)s;
	size_t n = strlen(s);
	for (size_t i = 0, took; i < n; i += took) {
		const char *piece;
		char esc[8];
		size_t size = next_piece(p + i, n - i, &piece, esc, &took);
		fwrite(piece, 1, size, f);
	}
}
