/*
 * call_kind.c - the kinds of calls as the views name, place and colour them
 * (call_kind.h).
 */
#include "call_kind.h"
#include "view_util.h"

#include <stdio.h>
#include <string.h>

static const char *const json_names[VIEW_KINDS] = {"function", "library", "syscall", "sched",
						   "kernel"};
static const char *const labels[VIEW_KINDS] = {"function", "library", "syscall", "off-CPU",
					       "kernel"};

const char *view_kind_json(unsigned kind)
{
	return kind < VIEW_KINDS ? json_names[kind] : "function";
}

const char *view_kind_label(unsigned kind)
{
	return kind < VIEW_KINDS ? labels[kind] : "function";
}

int view_kind_parse(const char *name)
{
	for (int k = 0; k < VIEW_KINDS; k++)
		if (strcmp(name, json_names[k]) == 0 || strcmp(name, labels[k]) == 0)
			return k;
	if (strcmp(name, "offcpu") == 0 || strcmp(name, "off-cpu") == 0)
		return CALL_OFFCPU;
	return -1;
}

const char *view_kind_place(const struct symbol *s)
{
	switch (s->kind) {
	case CALL_FUNCTION:
		return NULL;
	case CALL_LIBRARY:
		return view_basename(s->module);
	default:
		return "kernel";
	}
}

const char *view_kind_shown_name(const struct symbol *s, char *buf, size_t len)
{
	switch (s->kind) {
	case CALL_LIBRARY:
		snprintf(buf, len, "%s@%s", s->name, view_basename(s->module));
		return buf;
	case CALL_SYSCALL:
	case CALL_KERNEL:
		snprintf(buf, len, "[%s] %s", view_kind_json(s->kind), s->name);
		return buf;
	default:
		return s->name;
	}
}

const char *view_kind_frame_name(const struct symbol *s, char *buf, size_t len)
{
	if (s->kind == CALL_FUNCTION || s->kind == CALL_LIBRARY)
		return s->name;
	snprintf(buf, len, "%s_[k]", s->name);
	return buf;
}

const char *view_symbol_color(const struct symbol *s, char *buf, size_t len)
{
	uint32_t h = view_hash(s->name);
	unsigned a = (h & 0xff) % 50, b = (h >> 8 & 0xff) % 50, c = (h >> 16 & 0xff) % 50;
	switch (s->kind) {
	case CALL_FUNCTION:
		return view_flame_color(s->name, buf, len);
	case CALL_LIBRARY: /* blues */
		snprintf(buf, len, "#%02x%02x%02x", 60 + a, 120 + b, 205 + c);
		break;
	case CALL_SYSCALL: /* greens */
		snprintf(buf, len, "#%02x%02x%02x", 60 + a, 175 + b, 60 + c);
		break;
	case CALL_OFFCPU: /* greys */
		snprintf(buf, len, "#%02x%02x%02x", 170 + a / 5, 170 + a / 5, 170 + a / 5);
		break;
	default: /* kernel functions: orange, as FlameGraph's */
		snprintf(buf, len, "#%02x%02x%02x", 225 + a / 2, 140 + b / 2, 20 + c / 2);
		break;
	}
	return buf;
}

const char *view_kind_legend_color(unsigned kind)
{
	static const char *const colors[VIEW_KINDS] = {"#e6803c", "#5a96e6", "#50c850", "#b0b0b0",
						       "#f0a030"};
	return kind < VIEW_KINDS ? colors[kind] : colors[0];
}
