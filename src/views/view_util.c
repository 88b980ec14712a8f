/*
 * view_util.c - escaping, number output, names and colours shared by every
 * view, so that no view has its own copy.
 */
#include <stdlib.h>
#include <string.h>
#include "view_util.h"
#include "../utils/string_hash.h"
#include "../format/printable.h"

void view_json_string(FILE *f, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	putc_unlocked('"', f);
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			putc_unlocked('\\', f);
			putc_unlocked(c, f);
		} else if (c == '\n') {
			fputs_unlocked("\\n", f);
		} else if (c == '\t') {
			fputs_unlocked("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fputs_unlocked("\\u00", f);
			putc_unlocked(hex[c >> 4], f);
			putc_unlocked(hex[c & 15], f);
		} else {
			putc_unlocked(c, f);
		}
	}
	putc_unlocked('"', f);
}

static void xml_char(FILE *f, unsigned char c)
{
	switch (c) {
	case '&':
		fputs_unlocked("&amp;", f);
		break;
	case '<':
		fputs_unlocked("&lt;", f);
		break;
	case '>':
		fputs_unlocked("&gt;", f);
		break;
	case '"':
		fputs_unlocked("&quot;", f);
		break;
	case '\'':
		fputs_unlocked("&apos;", f);
		break;
	default:
		/* Control characters other than tab and newline are not XML. */
		if (c < 0x20 && c != '\t' && c != '\n')
			c = '?';
		putc_unlocked(c, f);
	}
}

void view_xml_text(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
		xml_char(f, *p);
}

void view_xml_text_cut(FILE *f, const char *s, size_t max)
{
	size_t len = s ? strlen(s) : 0;
	if (len <= max) {
		view_xml_text(f, s);
		return;
	}
	size_t n = max >= 2 ? max - 2 : 0;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--; /* do not split a UTF-8 sequence */
	for (size_t i = 0; i < n; i++)
		xml_char(f, (unsigned char)s[i]);
	fputs_unlocked("..", f);
}

void view_put_u64(FILE *f, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof(buf);
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite_unlocked(p, 1, (size_t)(buf + sizeof(buf) - p), f);
}

void view_put_us(FILE *f, uint64_t ns)
{
	char frac[4] = {(char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
			(char)('0' + ns % 10), 0};
	view_put_u64(f, ns / 1000);
	putc_unlocked('.', f);
	fwrite_unlocked(frac, 1, 3, f);
}

const char *view_basename(const char *path)
{
	if (!path || !*path)
		return "?";
	const char *slash = strrchr(path, '/');
	return slash && slash[1] ? slash + 1 : path;
}

const char *view_source_place(const struct symbol *s, char *buf, size_t len)
{
	if (!s->file || !*s->file)
		snprintf(buf, len, "%s", "");
	else if (s->line)
		snprintf(buf, len, "%s:%u", view_basename(s->file), s->line);
	else
		snprintf(buf, len, "%s", view_basename(s->file));
	return buf;
}

const char *view_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
	return buf;
}

const char *view_thread_label(const struct walk_thread *t, char *buf, size_t len)
{
	char name[256];
	if (t->name && *t->name)
		snprintf(buf, len, "pid %u tid %u %s", t->pid, t->tid,
			 printable(t->name, name, sizeof(name)));
	else
		snprintf(buf, len, "pid %u tid %u", t->pid, t->tid);
	return buf;
}

const char *view_name_params(const char *name)
{
	return symbol_name_params(name);
}

const char *view_name_qualifiers(const char *name)
{
	const char *close = strrchr(name, ')');
	return close && view_name_params(name) ? close + 1 : "";
}

const char *view_short_name(const char *name, char *buf, size_t len)
{
	return symbol_short_name(name, buf, len);
}

uint32_t view_hash(const char *s)
{
	return string_hash(s ? s : "");
}

const char *view_flame_color(const char *name, char *buf, size_t len)
{
	uint32_t h = view_hash(name);
	unsigned r = 205 + (h & 0xff) % 50;
	unsigned g = 80 + (h >> 8 & 0xff) % 150;
	unsigned b = 30 + (h >> 16 & 0xff) % 50;
	snprintf(buf, len, "#%02x%02x%02x", r, g, b);
	return buf;
}

/* A fixed palette of light colours, picked by the name's hash. */
const char *view_group_color(const char *name, char *buf, size_t len)
{
	static const unsigned char palette[][3] = {
	    {0xdb, 0xe9, 0xf6}, {0xfd, 0xe6, 0xc8}, {0xd9, 0xf0, 0xd3}, {0xf5, 0xd8, 0xe6},
	    {0xe6, 0xdf, 0xf5}, {0xfa, 0xf3, 0xc0}, {0xd4, 0xef, 0xef}, {0xf0, 0xdc, 0xd0},
	};
	const unsigned char *c = palette[view_hash(name) % (sizeof(palette) / sizeof(palette[0]))];
	snprintf(buf, len, "#%02x%02x%02x", c[0], c[1], c[2]);
	return buf;
}

const char *view_heat_color(double heat, char *buf, size_t len)
{
	/* pale blue -> pale yellow -> orange -> red */
	static const double stops[][3] = {
	    {220, 232, 245}, {250, 240, 190}, {250, 170, 90}, {225, 60, 50}};
	if (heat < 0)
		heat = 0;
	if (heat > 1)
		heat = 1;
	double pos = heat * 3;
	int i = pos >= 3 ? 2 : (int)pos;
	double t = pos - i;
	unsigned rgb[3];
	for (int c = 0; c < 3; c++)
		rgb[c] = (unsigned)(stops[i][c] + (stops[i + 1][c] - stops[i][c]) * t + 0.5);
	snprintf(buf, len, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
	return buf;
}

void **view_symtab_slot(struct view_symtab *t, uint32_t id)
{
	if (id >= t->len) {
		size_t len = t->len ? t->len : 256;
		while (len <= id)
			len *= 2;
		void **slots = realloc(t->slots, len * sizeof(*slots));
		if (!slots)
			return NULL;
		memset(slots + t->len, 0, (len - t->len) * sizeof(*slots));
		t->slots = slots;
		t->len = len;
	}
	return &t->slots[id];
}

void view_symtab_free(struct view_symtab *t, void (*free_entry)(void *))
{
	if (free_entry)
		for (size_t i = 0; i < t->len; i++)
			if (t->slots[i])
				free_entry(t->slots[i]);
	free(t->slots);
	t->slots = NULL;
	t->len = 0;
}
