/*
 * signature_text.c - a signature described in one line (for people and
 * tests), and a capture plan as bytes, written and checked when read back.
 */
#include "func_signature.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* --- describing a signature in one line --- */

const char *value_reg_name(unsigned reg)
{
	static const char *const names[VREG_COUNT] = VREG_NAMES;
	return reg < VREG_COUNT ? names[reg] : "?";
}

struct text_out {
	char *buf;
	size_t len, used;
};

static void put(struct text_out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *at = o->used < o->len ? o->buf + o->used : NULL;
	int n = vsnprintf(at, at ? o->len - o->used : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->used += (size_t)n;
}

static void put_location(struct text_out *o, const struct value_location *loc)
{
	if (loc->where == WHERE_UNSUPPORTED) {
		put(o, " @?(%s)", loc->why);
		return;
	}
	if (loc->where == WHERE_NONE)
		return;
	put(o, " @");
	if (loc->npieces == 0)
		put(o, "-");
	for (unsigned i = 0; i < loc->npieces; i++) {
		const struct value_piece *p = &loc->pieces[i];
		const char *sep = i ? "," : "";
		if (p->kind == PIECE_REG)
			put(o, "%s%s:%u", sep, value_reg_name(p->reg), p->size);
		else if (p->kind == PIECE_STACK)
			put(o, "%sstack+%d:%u", sep, p->offset, p->size);
		else
			put(o, "%s[%s]:%u", sep, value_reg_name(p->reg), p->size);
	}
}

/* "int a", "char *p": a type and the name it declares. */
static void put_declared(struct text_out *o, const char *type, const char *name)
{
	size_t n = strlen(type);
	bool tight = n && (type[n - 1] == '*' || type[n - 1] == '&');
	put(o, "%s%s%s", type, *name && !tight ? " " : "", name);
}

size_t func_signature_describe(const struct func_signature *s, char *buf, size_t len)
{
	struct text_out o = {buf, len, 0};
	if (len)
		buf[0] = '\0';
	put_declared(&o, s->return_type->text, s->name);
	put(&o, "(");
	for (uint32_t i = 0; i < s->nparams; i++) {
		const struct func_param *p = &s->params[i];
		put(&o, i ? ", " : "");
		put_declared(&o, p->type->text, p->name);
		put_location(&o, &p->loc);
	}
	if (s->variadic)
		put(&o, "%s...", s->nparams ? ", " : "");
	put(&o, ")");
	if (s->hidden_return_pointer)
		put(&o, " hidden:%s", value_reg_name(VREG_HIDDEN_RESULT));
	put_location(&o, &s->ret);
	return o.used;
}

/* --- plan bytes --- */

#define PLAN_MAGIC "CTP1"
#define PLAN_HEAD 8  /* magic, nargs, has_return, nsteps, 0 */
#define PLAN_VALUE 4 /* first, count, size (u16) */
#define PLAN_STEP 12 /* op, reg, size, value_offset (u16), 0 (u16), offset (i32) */

static void put_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

size_t func_plan_serialized_size(const struct func_plan *plan)
{
	return PLAN_HEAD + PLAN_VALUE * ((size_t)plan->nargs + 1) +
	       PLAN_STEP * (size_t)plan->nsteps;
}

static uint8_t *put_value(uint8_t *p, const struct plan_value *v)
{
	p[0] = v->first;
	p[1] = v->count;
	put_u16(p + 2, v->size);
	return p + PLAN_VALUE;
}

size_t func_plan_serialize(const struct func_plan *plan, uint8_t *buf, size_t cap)
{
	size_t need = func_plan_serialized_size(plan);
	if (cap < need || plan->nargs > FUNC_PLAN_MAX_ARGS || plan->nsteps > FUNC_PLAN_MAX_STEPS)
		return 0;
	uint8_t *p = buf;
	memcpy(p, PLAN_MAGIC, 4);
	p[4] = plan->nargs;
	p[5] = plan->has_return;
	p[6] = plan->nsteps;
	p[7] = 0;
	p += PLAN_HEAD;
	for (unsigned i = 0; i < plan->nargs; i++)
		p = put_value(p, &plan->args[i]);
	p = put_value(p, &plan->ret);
	for (unsigned i = 0; i < plan->nsteps; i++, p += PLAN_STEP) {
		const struct plan_step *s = &plan->steps[i];
		uint32_t off = (uint32_t)s->offset;
		p[0] = s->op;
		p[1] = s->reg;
		put_u16(p + 2, s->size);
		put_u16(p + 4, s->value_offset);
		put_u16(p + 6, 0);
		put_u16(p + 8, (uint16_t)off);
		put_u16(p + 10, (uint16_t)(off >> 16));
	}
	return need;
}

static bool step_valid(const struct plan_step *s, uint16_t value_size, unsigned count)
{
	if (s->op >= PLAN_OP_COUNT || s->reg >= VREG_COUNT)
		return false;
	if (s->op == PLAN_UNAVAILABLE || s->op == PLAN_STRING_REG || s->op == PLAN_STRING_STACK)
		return count == 1 && value_size == 0;
	if (s->size == 0 || s->value_offset + s->size > value_size)
		return false;
	if (s->op == PLAN_DEREF)
		return s->value_offset >= 8;
	return s->op != PLAN_REG || s->size <= value_reg_bytes(s->reg);
}

static bool value_valid(const struct func_plan *plan, const struct plan_value *v)
{
	if (v->size > FUNC_PLAN_MAX_COPY || v->first + v->count > plan->nsteps)
		return false;
	for (unsigned i = 0; i < v->count; i++)
		if (!step_valid(&plan->steps[v->first + i], v->size, v->count))
			return false;
	return true;
}

static const uint8_t *get_value(const uint8_t *p, struct plan_value *v)
{
	v->first = p[0];
	v->count = p[1];
	v->size = get_u16(p + 2);
	return p + PLAN_VALUE;
}

int func_plan_parse(const uint8_t *buf, size_t len, struct func_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	if (len < PLAN_HEAD || memcmp(buf, PLAN_MAGIC, 4) != 0 || buf[4] > FUNC_PLAN_MAX_ARGS ||
	    buf[5] > 1 || buf[6] > FUNC_PLAN_MAX_STEPS || buf[7] != 0)
		return -1;
	plan->nargs = buf[4];
	plan->has_return = buf[5];
	plan->nsteps = buf[6];
	if (len != func_plan_serialized_size(plan))
		return -1;
	const uint8_t *p = buf + PLAN_HEAD;
	for (unsigned i = 0; i < plan->nargs; i++)
		p = get_value(p, &plan->args[i]);
	p = get_value(p, &plan->ret);
	for (unsigned i = 0; i < plan->nsteps; i++, p += PLAN_STEP) {
		struct plan_step *s = &plan->steps[i];
		s->op = p[0];
		s->reg = p[1];
		s->size = get_u16(p + 2);
		s->value_offset = get_u16(p + 4);
		s->offset = (int32_t)((uint32_t)get_u16(p + 8) | (uint32_t)get_u16(p + 10) << 16);
		if (get_u16(p + 6) != 0)
			return -1;
	}
	for (unsigned i = 0; i < plan->nargs; i++)
		if (!value_valid(plan, &plan->args[i]))
			return -1;
	if (plan->has_return ? !value_valid(plan, &plan->ret)
			     : plan->ret.count != 0 || plan->ret.size != 0)
		return -1;
	return 0;
}
