/*
 * value_encode.c - argument and return values encoded as the tagged values
 * of EV_ARGS and EV_RETVAL, as a capture plan says (see value_encode.h).
 * Used inside traced programs (the runtime) and by the ptrace engine: it
 * calls no C library function (copies are loops, and the runtime's build
 * keeps them loops), and reads memory only through the reader it is given.
 */
#include "value_encode.h"

#include "trace_format.h"

static void copy_bytes(void *to, const void *from, size_t n)
{
	uint8_t *d = to;
	const uint8_t *s = from;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

static void zero_bytes(void *to, size_t n)
{
	uint8_t *d = to;
	for (size_t i = 0; i < n; i++)
		d[i] = 0;
}

/* The register's bytes (16 for a vector or x87 one); NULL when the x87
 * ones were not read. */
static const uint8_t *register_bytes(const struct value_registers *r, unsigned reg)
{
	if (reg < VREG_GP_COUNT)
		return (const uint8_t *)&r->gp[reg];
	if (reg >= VREG_X87_0)
		return r->st ? r->st + 16 * (reg - VREG_X87_0) : NULL;
	return r->vec + 16 * (reg - VREG_VEC0);
}

/* The 8 bytes a string step's pointer is in. */
static uint64_t step_pointer(const struct value_registers *r, const struct plan_step *s)
{
	uint64_t p = 0;
	const uint8_t *bytes = s->op == PLAN_STRING_REG ? register_bytes(r, s->reg) : NULL;
	if (bytes)
		copy_bytes(&p, bytes, 8);
	else if (s->op == PLAN_STRING_STACK &&
		 r->read(r->read_ctx, r->sp + (uint64_t)(int64_t)s->offset, &p, 8) != 8)
		p = 0;
	return p;
}

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *put_string(uint8_t *p, const struct value_registers *r, const struct plan_step *s)
{
	uint64_t address = step_pointer(r, s);
	uint8_t text[TRACE_STRING_MAX + 1];
	if (!address) {
		*p++ = VALUE_NULL;
		return p;
	}
	size_t got = r->read(r->read_ctx, address, text, sizeof(text));
	if (got == 0) {
		*p++ = VALUE_UNREADABLE;
		p = put_varint(p, 8);
		copy_bytes(p, &address, 8);
		return p + 8;
	}
	size_t len = 0;
	while (len < got && text[len])
		len++;
	int whole = len < got;
	if (!whole && len > TRACE_STRING_MAX)
		len = TRACE_STRING_MAX;
	*p++ = whole ? VALUE_STRING : VALUE_STRING_CUT;
	p = put_varint(p, len);
	copy_bytes(p, text, len);
	return p + len;
}

/* Copies one step's bytes into value; 0 when memory could not be read. */
static int copy_step(uint8_t *value, const struct value_registers *r, const struct plan_step *s)
{
	uint8_t *to = value + s->value_offset;
	switch (s->op) {
	case PLAN_REG: {
		const uint8_t *bytes = register_bytes(r, s->reg);
		if (!bytes)
			return 0;
		copy_bytes(to, bytes, s->size <= 16 ? s->size : 16);
		return 1;
	}
	case PLAN_STACK:
		return r->read(r->read_ctx, r->sp + (uint64_t)(int64_t)s->offset, to, s->size) ==
		       s->size;
	case PLAN_MEMORY: {
		uint64_t base;
		copy_bytes(&base, register_bytes(r, s->reg), 8);
		return r->read(r->read_ctx, base + (uint64_t)(int64_t)s->offset, to, s->size) ==
		       s->size;
	}
	}
	return 0;
}

/* A reference's object, at the address in the value's first 8 bytes; 0
 * when it could not be read. */
static int copy_referent(uint8_t *value, const struct value_registers *r, const struct plan_step *s)
{
	uint64_t address;
	copy_bytes(&address, value, 8);
	return address && r->read(r->read_ctx, address + (uint64_t)(int64_t)s->offset,
				  value + s->value_offset, s->size) == s->size;
}

/* One value at p (room for FUNC_PLAN_MAX_COPY + 16 bytes); returns the end. */
uint8_t *value_encode(uint8_t *p, const struct func_plan *plan, const struct plan_value *v,
		      const struct value_registers *r)
{
	const struct plan_step *s = &plan->steps[v->first];
	if (v->count == 0) { /* nothing passed: an empty class */
		*p++ = VALUE_BYTES;
		*p++ = 0;
		return p;
	}
	if (s->op == PLAN_UNAVAILABLE || v->size > FUNC_PLAN_MAX_COPY) {
		*p++ = VALUE_UNAVAILABLE;
		return p;
	}
	if (s->op == PLAN_STRING_REG || s->op == PLAN_STRING_STACK)
		return put_string(p, r, s);
	uint8_t value[FUNC_PLAN_MAX_COPY];
	size_t size = v->size;
	zero_bytes(value, size);
	for (unsigned i = 0; i < v->count; i++) {
		if (s[i].value_offset + s[i].size > v->size) {
			*p++ = VALUE_UNAVAILABLE;
			return p;
		}
		if (s[i].op == PLAN_DEREF) {
			if (s[i].value_offset >= 8 && !copy_referent(value, r, &s[i])) {
				size = s[i].value_offset; /* the pointer alone */
				break;
			}
			continue;
		}
		if (!copy_step(value, r, &s[i])) {
			*p++ = VALUE_UNAVAILABLE;
			return p;
		}
	}
	*p++ = VALUE_BYTES;
	p = put_varint(p, size);
	copy_bytes(p, value, size);
	return p + size;
}
