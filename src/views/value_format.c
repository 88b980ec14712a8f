/*
 * value_format.c - tagged argument and return values decoded, and written
 * as C text or JSON by their DWARF type (see value_format.h).
 */
#include "value_format.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../format/trace_format.h"

#define NEST_MAX 8	   /* struct and array nesting written */
#define ARRAY_SHOWN_MAX 64 /* array elements written before "..." */

/* --- decoding --- */

/* A LEB128 varint of at most 10 bytes whose value fits 64 bits. */
static size_t read_varint(const uint8_t *p, size_t len, uint64_t *v)
{
	*v = 0;
	for (size_t i = 0; i < len && i < 10; i++) {
		uint64_t bits = p[i] & 0x7f;
		if (i == 9 && bits > 1)
			return 0;
		*v |= bits << (7 * i);
		if (!(p[i] & 0x80))
			return i + 1;
	}
	return 0;
}

size_t value_decode(const uint8_t *p, size_t len, struct tagged_value *out)
{
	memset(out, 0, sizeof(*out));
	if (len == 0)
		return 0;
	out->tag = p[0];
	switch (p[0]) {
	case VALUE_NULL:
	case VALUE_UNAVAILABLE:
		return 1;
	case VALUE_BYTES:
	case VALUE_STRING:
	case VALUE_STRING_CUT:
	case VALUE_UNREADABLE:
		break;
	default:
		return 0;
	}
	uint64_t n;
	size_t head = read_varint(p + 1, len - 1, &n);
	if (head == 0 || n > len - 1 - head)
		return 0;
	out->len = (size_t)n;
	out->bytes = n ? p + 1 + head : NULL;
	return 1 + head + (size_t)n;
}

/* --- numbers --- */

static unsigned __int128 read_le(const uint8_t *p, size_t n)
{
	unsigned __int128 v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* The integer in n bytes, sign-extended when is_signed. */
static __int128 read_int(const uint8_t *p, size_t n, bool is_signed)
{
	unsigned __int128 v = read_le(p, n);
	if (is_signed && n < 16 && (v >> (8 * n - 1) & 1))
		v |= ~(unsigned __int128)0 << (8 * n);
	return (__int128)v;
}

static void out_u128(struct value_out *o, unsigned __int128 v)
{
	char buf[48], *p = buf + sizeof(buf);
	do {
		*--p = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v);
	value_out_write(o, p, (size_t)(buf + sizeof(buf) - p));
}

static void out_int(struct value_out *o, __int128 v, bool is_signed)
{
	if (is_signed && v < 0) {
		value_out_char(o, '-');
		out_u128(o, -(unsigned __int128)v);
	} else {
		out_u128(o, (unsigned __int128)v);
	}
}

static void out_hex(struct value_out *o, uint64_t v)
{
	value_out_printf(o, "0x%llx", (unsigned long long)v);
}

/* A 16-byte float as the bytes of the other format: IEEE binary128
 * (aarch64's long double) and x87's 80 bits share the sign and the 15-bit
 * exponent; x87 keeps the integer bit and 63 bits of the fraction (the
 * last 49 bits of binary128's are rounded off, to nearest). */
static void x87_of_quad(const uint8_t q[16], uint8_t x[16])
{
	uint64_t lo, hi;
	memcpy(&lo, q, 8);
	memcpy(&hi, q + 8, 8);
	uint16_t sign_exp = (uint16_t)(hi >> 48);
	uint64_t integer = (sign_exp & 0x7fff) ? 1ull << 63 : 0;
	uint64_t mantissa = integer | (hi & 0xffffffffffffull) << 15 | lo >> 49;
	int finite = (sign_exp & 0x7fff) != 0x7fff;
	if (finite && (lo >> 48 & 1) && ++mantissa == 0) { /* carried out of the top */
		mantissa = 1ull << 63;
		sign_exp++;
	}
	if (!finite && (hi << 16 | lo)) /* a NaN whose payload is in the bits dropped */
		mantissa |= 1ull << 62;
	memset(x, 0, 16);
	memcpy(x, &mantissa, 8);
	memcpy(x + 8, &sign_exp, 2);
}

static void quad_of_x87(const uint8_t x[16], uint8_t q[16])
{
	uint64_t mantissa;
	uint16_t sign_exp;
	memcpy(&mantissa, x, 8);
	memcpy(&sign_exp, x + 8, 2);
	uint64_t fraction = mantissa & ~(1ull << 63);
	uint64_t lo = fraction << 49, hi = (uint64_t)sign_exp << 48 | fraction >> 15;
	memcpy(q, &lo, 8);
	memcpy(q + 8, &hi, 8);
}

/* A float of `size` bytes; a 16-byte one is IEEE binary128 when `quad`,
 * else x87's, whatever this machine's long double is. */
static long double read_float(const uint8_t *p, uint32_t size, bool quad)
{
	if (size == 4) {
		float f;
		memcpy(&f, p, 4);
		return f;
	}
	if (size == 8) {
		double d;
		memcpy(&d, p, 8);
		return d;
	}
	uint8_t bytes[16];
	if (LDBL_MANT_DIG == 64 && quad)
		x87_of_quad(p, bytes);
	else if (LDBL_MANT_DIG == 113 && !quad)
		quad_of_x87(p, bytes);
	else
		memcpy(bytes, p, 16);
	long double x;
	memcpy(&x, bytes, sizeof(x) < 16 ? sizeof(x) : 16);
	return x;
}

/* The shortest %g text that reads back as the same number. */
static void shortest_float(char *buf, size_t len, long double x, uint32_t size)
{
	if (size == 4) {
		float f = (float)x;
		for (int prec = 1; prec <= 9; prec++)
			if (snprintf(buf, len, "%.*g", prec, f), strtof(buf, NULL) == f)
				return;
	} else if (size == 8) {
		double d = (double)x;
		for (int prec = 1; prec <= 17; prec++)
			if (snprintf(buf, len, "%.*g", prec, d), strtod(buf, NULL) == d)
				return;
	} else {
		for (int prec = 1; prec <= 36; prec++)
			if (snprintf(buf, len, "%.*Lg", prec, x), strtold(buf, NULL) == x)
				return;
	}
}

/* C text of a float; false (and "inf", "-inf", "nan") when JSON has no
 * number for it. */
static bool float_text(char *buf, size_t len, const uint8_t *p, uint32_t size, bool quad)
{
	long double x = read_float(p, size, quad);
	if (isnan(x)) {
		snprintf(buf, len, "nan");
		return false;
	}
	if (isinf(x)) {
		snprintf(buf, len, x < 0 ? "-inf" : "inf");
		return false;
	}
	shortest_float(buf, len, x, size);
	return true;
}

/* --- values by type --- */

struct fmt {
	struct value_out *o;
	bool json;
};

static void put_value(struct fmt *f, const struct ctype *t, const uint8_t *p, size_t n, int depth);

static void put_missing(struct fmt *f)
{
	value_out_text_put(f->o, f->json ? "null" : "?");
}

/* Bytes of a type not described: "<bytes 01 02>". */
static void put_raw(struct fmt *f, const uint8_t *p, size_t n)
{
	struct value_out *o = f->o;
	if (f->json)
		value_out_char(o, '"');
	value_out_text_put(o, "<bytes");
	for (size_t i = 0; i < n && i < FUNC_PLAN_MAX_COPY; i++)
		value_out_printf(o, " %02x", p[i]);
	value_out_char(o, '>');
	if (f->json)
		value_out_char(o, '"');
}

static void put_pointer(struct fmt *f, uint64_t v)
{
	if (v == 0) {
		value_out_text_put(f->o, f->json ? "null" : "NULL");
		return;
	}
	if (f->json)
		value_out_char(f->o, '"');
	out_hex(f->o, v);
	if (f->json)
		value_out_char(f->o, '"');
}

/* A C++ reference as gdb writes it: "@0x7ffe5c: {id=7}", the object when
 * it was read at the call (a parameter's, a result's); in JSON the object,
 * else the address. */
static void put_reference(struct fmt *f, const struct ctype *t, const uint8_t *p, size_t n,
			  int depth)
{
	const struct ctype *object = t->element;
	bool read = object && object->size && n >= 8 + object->size;
	if (f->json && read) {
		put_value(f, object, p + 8, n - 8, depth + 1);
		return;
	}
	if (f->json) {
		value_out_char(f->o, '"');
		out_hex(f->o, (uint64_t)read_le(p, 8));
		value_out_char(f->o, '"');
		return;
	}
	value_out_char(f->o, '@');
	out_hex(f->o, (uint64_t)read_le(p, 8));
	if (read) {
		value_out_text_put(f->o, ": ");
		put_value(f, object, p + 8, n - 8, depth + 1);
	}
}

static void put_enum(struct fmt *f, const struct ctype *t, const uint8_t *p)
{
	__int128 v = read_int(p, t->size, t->is_signed);
	for (uint32_t i = 0; i < t->n_enumerators; i++) {
		if ((uint64_t)v != t->enumerators[i].value)
			continue;
		if (f->json)
			value_out_json_text(f->o, t->enumerators[i].name);
		else
			value_out_text_put(f->o, t->enumerators[i].name);
		return;
	}
	out_int(f->o, v, t->is_signed);
}

static void put_char(struct fmt *f, uint8_t c)
{
	if (!f->json) {
		value_out_c_char(f->o, c);
		return;
	}
	value_out_json_string(f->o, &c, 1, "");
}

static void put_float(struct fmt *f, const uint8_t *p, uint32_t size, bool quad)
{
	char buf[64];
	bool number = float_text(buf, sizeof(buf), p, size, quad);
	if (f->json && !number)
		value_out_json_text(f->o, buf);
	else
		value_out_text_put(f->o, buf);
}

static void put_complex(struct fmt *f, const uint8_t *p, uint32_t size, bool quad)
{
	char re[64], im[64];
	bool numbers = float_text(re, sizeof(re), p, size / 2, quad);
	numbers &= float_text(im, sizeof(im), p + size / 2, size / 2, quad);
	if (f->json && numbers)
		value_out_printf(f->o, "[%s, %s]", re, im);
	else if (f->json)
		value_out_printf(f->o, "[\"%s\", \"%s\"]", re, im);
	else
		value_out_printf(f->o, "%s + %si", re, im);
}

/* A bitfield's bits, from the bytes that hold them. */
static bool put_bitfield(struct fmt *f, const struct ctype_member *m, const uint8_t *p, size_t n)
{
	size_t bytes = (m->bit_offset + m->bit_size + 7u) / 8;
	const struct ctype *t = m->type;
	if (m->offset + bytes > n || bytes > 16 || m->bit_size > 64 ||
	    (t->kind != CTYPE_INT && t->kind != CTYPE_BOOL && t->kind != CTYPE_ENUM &&
	     t->kind != CTYPE_CHAR))
		return false;
	unsigned __int128 v = read_le(p + m->offset, bytes) >> m->bit_offset;
	unsigned __int128 mask = ((unsigned __int128)1 << m->bit_size) - 1;
	v &= mask;
	if (t->is_signed && (v >> (m->bit_size - 1) & 1))
		v |= ~mask;
	uint8_t buf[16] = {0};
	for (uint32_t i = 0; i < 16 && i < t->size; i++)
		buf[i] = (uint8_t)(v >> (8 * i));
	put_value(f, t, buf, t->size, NEST_MAX);
	return true;
}

static void put_members(struct fmt *f, const struct ctype *t, const uint8_t *p, size_t n, int depth,
			bool *first)
{
	for (uint32_t i = 0; i < t->n_members; i++) {
		const struct ctype_member *m = &t->members[i];
		const struct ctype *mt = m->type;
		if (!*m->name && (mt->kind == CTYPE_STRUCT || mt->kind == CTYPE_UNION) &&
		    m->offset <= n) {
			/* an anonymous struct or union: its members are the parent's */
			put_members(f, mt, p + m->offset, n - m->offset, depth + 1, first);
			continue;
		}
		value_out_text_put(f->o, *first ? "" : ", ");
		*first = false;
		if (f->json) {
			value_out_json_text(f->o, m->name);
			value_out_text_put(f->o, ": ");
		} else { /* a base class's name may be longer than out_printf's */
			value_out_text_put(f->o, m->name);
			value_out_char(f->o, '=');
		}
		if (m->bit_size ? !put_bitfield(f, m, p, n) : m->offset >= n)
			put_missing(f);
		else if (!m->bit_size)
			put_value(f, mt, p + m->offset, n - m->offset, depth + 1);
	}
}

static void put_struct(struct fmt *f, const struct ctype *t, const uint8_t *p, size_t n, int depth)
{
	bool first = true;
	value_out_char(f->o, '{');
	put_members(f, t, p, n, depth, &first);
	value_out_char(f->o, '}');
}

static void put_array(struct fmt *f, const struct ctype *t, const uint8_t *p, size_t n, int depth)
{
	const struct ctype *e = t->element;
	if (e->kind == CTYPE_CHAR) {
		size_t len = t->count < n ? t->count : n;
		const uint8_t *nul = memchr(p, 0, len);
		len = nul ? (size_t)(nul - p) : len;
		if (f->json)
			value_out_json_string(f->o, p, len, "");
		else
			value_out_c_string(f->o, p, len, false);
		return;
	}
	value_out_char(f->o, f->json ? '[' : '{');
	for (uint32_t i = 0; i < t->count; i++) {
		value_out_text_put(f->o, i ? ", " : "");
		if (i == ARRAY_SHOWN_MAX) {
			value_out_text_put(f->o, f->json ? "\"...\"" : "...");
			break;
		}
		size_t at = (size_t)i * e->size;
		if (at >= n || e->size == 0)
			put_missing(f);
		else
			put_value(f, e, p + at, n - at, depth + 1);
	}
	value_out_char(f->o, f->json ? ']' : '}');
}

/* The value of type t in the n bytes at p (more bytes may follow). */
static void put_value(struct fmt *f, const struct ctype *t, const uint8_t *p, size_t n, int depth)
{
	bool scalar = t->kind != CTYPE_STRUCT && t->kind != CTYPE_UNION && t->kind != CTYPE_ARRAY;
	if ((scalar && n < t->size) || depth > NEST_MAX) {
		put_missing(f);
		return;
	}
	switch (t->kind) {
	case CTYPE_INT:
		if (t->size == 0 || t->size > 16)
			break;
		out_int(f->o, read_int(p, t->size, t->is_signed), t->is_signed);
		return;
	case CTYPE_CHAR:
		put_char(f, p[0]);
		return;
	case CTYPE_BOOL:
		if (t->size == 0 || t->size > 16)
			break;
		if (read_le(p, t->size) <= 1)
			value_out_text_put(f->o, p[0] ? "true" : "false");
		else
			out_int(f->o, read_int(p, t->size, false), false);
		return;
	case CTYPE_ENUM:
		if (t->size == 0 || t->size > 16)
			break;
		put_enum(f, t, p);
		return;
	case CTYPE_FLOAT:
		put_float(f, p, t->size, t->ieee_quad);
		return;
	case CTYPE_COMPLEX:
		put_complex(f, p, t->size, t->ieee_quad);
		return;
	case CTYPE_POINTER:
	case CTYPE_STRING:
		if (t->size != 8)
			break;
		if (t->is_reference)
			put_reference(f, t, p, n, depth);
		else
			put_pointer(f, (uint64_t)read_le(p, 8));
		return;
	case CTYPE_STRUCT:
	case CTYPE_UNION:
		put_struct(f, t, p, n, depth);
		return;
	case CTYPE_ARRAY:
		put_array(f, t, p, n, depth);
		return;
	default:
		break;
	}
	put_raw(f, p, n < t->size || t->size == 0 ? n : t->size);
}

static void put_unreadable(struct fmt *f, const struct tagged_value *v)
{
	if (f->json)
		value_out_char(f->o, '"');
	value_out_text_put(f->o, "<unreadable ");
	out_hex(f->o, (uint64_t)read_le(v->bytes, v->len < 8 ? v->len : 8));
	value_out_char(f->o, '>');
	if (f->json)
		value_out_char(f->o, '"');
}

static void put_tagged(struct fmt *f, const struct ctype *t, const struct tagged_value *v)
{
	static const struct ctype unknown = {.kind = CTYPE_UNKNOWN, .text = "?"};
	static const uint8_t none[1];
	switch (v->tag) {
	case VALUE_BYTES:
		put_value(f, t ? t : &unknown, v->bytes ? v->bytes : none, v->len, 0);
		return;
	case VALUE_STRING:
	case VALUE_STRING_CUT:
		if (f->json)
			value_out_json_string(f->o, v->bytes, v->len,
					      v->tag == VALUE_STRING_CUT ? "..." : "");
		else
			value_out_c_string(f->o, v->bytes, v->len, v->tag == VALUE_STRING_CUT);
		return;
	case VALUE_NULL:
		value_out_text_put(f->o, f->json ? "null" : "NULL");
		return;
	case VALUE_UNAVAILABLE:
		value_out_text_put(f->o, f->json ? "\"<optimized out>\"" : "<optimized out>");
		return;
	case VALUE_UNREADABLE:
		put_unreadable(f, v);
		return;
	}
	value_out_text_put(f->o, f->json ? "\"<bad value>\"" : "<bad value>");
}

bool value_reference_address(const struct ctype *type, const struct tagged_value *v,
			     uint64_t *address)
{
	if (!type || !type->is_reference || !type->element || v->tag != VALUE_BYTES ||
	    v->len < 8 + (size_t)type->element->size || type->element->size == 0)
		return false;
	*address = (uint64_t)read_le(v->bytes, 8);
	return true;
}

void value_format_c(struct value_out *o, const struct ctype *type, const struct tagged_value *v)
{
	struct fmt f = {o, false};
	put_tagged(&f, type, v);
}

void value_format_json(struct value_out *o, const struct ctype *type, const struct tagged_value *v)
{
	struct fmt f = {o, true};
	put_tagged(&f, type, v);
}
