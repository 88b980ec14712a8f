/*
 * test_value_format.c - unit test of src/views/value_format.c: tagged
 * values decoded from bytes (also damaged ones), and written as C text and
 * as JSON for type descriptors built here by hand.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/format/trace_format.h"
#include "../../src/views/value_format.h"
#include "check.h"

static const struct ctype t_int = {
    .kind = CTYPE_INT, .size = 4, .align = 4, .is_signed = true, .text = "int"};
static const struct ctype t_llong = {
    .kind = CTYPE_INT, .size = 8, .align = 8, .is_signed = true, .text = "long long"};
static const struct ctype t_uint = {
    .kind = CTYPE_INT, .size = 4, .align = 4, .text = "unsigned int"};
static const struct ctype t_ulong = {
    .kind = CTYPE_INT, .size = 8, .align = 8, .text = "unsigned long"};
static const struct ctype t_schar8 = {
    .kind = CTYPE_INT, .size = 1, .align = 1, .is_signed = true, .text = "int8_t"};
static const struct ctype t_i128 = {
    .kind = CTYPE_INT, .size = 16, .align = 16, .is_signed = true, .text = "__int128"};
static const struct ctype t_char = {
    .kind = CTYPE_CHAR, .size = 1, .align = 1, .is_signed = true, .text = "char"};
static const struct ctype t_bool = {.kind = CTYPE_BOOL, .size = 1, .align = 1, .text = "bool"};
static const struct ctype_enumerator colors[] = {{"RED", 0}, {"GREEN", 1}, {"BLUE", 7}};
static const struct ctype t_enum = {.kind = CTYPE_ENUM,
				    .size = 4,
				    .align = 4,
				    .text = "enum color",
				    .enumerators = colors,
				    .n_enumerators = 3};
static const struct ctype t_float = {.kind = CTYPE_FLOAT, .size = 4, .align = 4, .text = "float"};
static const struct ctype t_double = {.kind = CTYPE_FLOAT, .size = 8, .align = 8, .text = "double"};
static const struct ctype t_x87 = {
    .kind = CTYPE_FLOAT, .size = 16, .align = 16, .text = "long double"};
static const struct ctype t_quad = {
    .kind = CTYPE_FLOAT, .size = 16, .align = 16, .ieee_quad = true, .text = "long double"};
static const struct ctype t_ptr = {.kind = CTYPE_POINTER, .size = 8, .align = 8, .text = "void *"};
static const struct ctype t_str = {
    .kind = CTYPE_STRING, .size = 8, .align = 8, .text = "const char *"};
static const struct ctype_member point_members[] = {{"x", &t_int, 0, 0, 0}, {"y", &t_int, 4, 0, 0}};
static const struct ctype t_point = {.kind = CTYPE_STRUCT,
				     .size = 8,
				     .align = 4,
				     .text = "struct point",
				     .members = point_members,
				     .n_members = 2};
static const struct ctype t_int3 = {
    .kind = CTYPE_ARRAY, .size = 12, .align = 4, .text = "int[3]", .element = &t_int, .count = 3};
static const struct ctype_member union_members[] = {{"i", &t_uint, 0, 0, 0},
						    {"f", &t_float, 0, 0, 0}};
static const struct ctype t_union = {.kind = CTYPE_UNION,
				     .size = 4,
				     .align = 4,
				     .text = "union num",
				     .members = union_members,
				     .n_members = 2};
static const struct ctype_member outer_members[] = {
    {"p", &t_point, 0, 0, 0}, {"v", &t_int3, 8, 0, 0}, {"", &t_union, 20, 0, 0}};
static const struct ctype t_outer = {.kind = CTYPE_STRUCT,
				     .size = 24,
				     .align = 4,
				     .text = "struct outer",
				     .members = outer_members,
				     .n_members = 3};

/* Formats one tagged value as C and as JSON and compares both. */
static void expect(const struct ctype *t, uint8_t tag, const void *bytes, size_t n,
		   const char *c_text, const char *json)
{
	struct tagged_value v = {tag, bytes, n};
	struct value_out o;
	value_out_init_buffer(&o);
	value_format_c(&o, t, &v);
	CHECK(strcmp(value_out_text(&o), c_text) == 0, "%s as C: got [%s], want [%s]",
	      t ? t->text : "(no type)", value_out_text(&o), c_text);
	value_out_reset(&o);
	value_format_json(&o, t, &v);
	CHECK(strcmp(value_out_text(&o), json) == 0, "%s as JSON: got [%s], want [%s]",
	      t ? t->text : "(no type)", value_out_text(&o), json);
	value_out_free(&o);
}

static void expect_int(const struct ctype *t, uint64_t bits, const char *text)
{
	expect(t, VALUE_BYTES, &bits, t->size, text, text);
}

static void test_integers(void)
{
	expect_int(&t_int, (uint32_t)-42, "-42");
	expect_int(&t_int, 0x7fffffff, "2147483647");
	expect_int(&t_int, 0x80000000u, "-2147483648");
	expect_int(&t_llong, (uint64_t)-1234567890123LL, "-1234567890123");
	expect_int(&t_llong, 0x8000000000000000ull, "-9223372036854775808");
	expect_int(&t_uint, 4000000000u, "4000000000");
	expect_int(&t_ulong, UINT64_MAX, "18446744073709551615");
	expect_int(&t_schar8, 0x80, "-128");
	uint8_t big[16];
	memset(big, 0xff, 16);
	expect(&t_i128, VALUE_BYTES, big, 16, "-1", "-1");
	big[15] = 0x7f;
	expect(&t_i128, VALUE_BYTES, big, 16, "170141183460469231731687303715884105727",
	       "170141183460469231731687303715884105727");
	expect(&t_int, VALUE_BYTES, big, 3, "?", "null"); /* too few bytes */
}

static void test_chars_bools_enums(void)
{
	uint8_t c = 'x';
	expect(&t_char, VALUE_BYTES, &c, 1, "'x'", "\"x\"");
	c = '\n';
	expect(&t_char, VALUE_BYTES, &c, 1, "'\\n'", "\"\\n\"");
	c = 1;
	expect(&t_char, VALUE_BYTES, &c, 1, "'\\x01'", "\"\\u0001\"");
	c = '\'';
	expect(&t_char, VALUE_BYTES, &c, 1, "'\\''", "\"'\"");
	c = 0;
	expect(&t_char, VALUE_BYTES, &c, 1, "'\\0'", "\"\\u0000\"");
	c = 0xe9;
	expect(&t_char, VALUE_BYTES, &c, 1, "'\\xe9'", "\"\\u00e9\"");
	c = 1;
	expect(&t_bool, VALUE_BYTES, &c, 1, "true", "true");
	c = 0;
	expect(&t_bool, VALUE_BYTES, &c, 1, "false", "false");
	c = 2;
	expect(&t_bool, VALUE_BYTES, &c, 1, "2", "2");
	uint32_t green = 1;
	expect(&t_enum, VALUE_BYTES, &green, 4, "GREEN", "\"GREEN\"");
	uint32_t v = 7;
	expect(&t_enum, VALUE_BYTES, &v, 4, "BLUE", "\"BLUE\"");
	v = 3;
	expect(&t_enum, VALUE_BYTES, &v, 4, "3", "3");
}

static void expect_double(double d, const char *c_text, const char *json)
{
	expect(&t_double, VALUE_BYTES, &d, 8, c_text, json);
}

/* A 16-byte float from its two halves, low first. */
static void expect_float16(const struct ctype *t, uint64_t lo, uint64_t hi, const char *c_text,
			   const char *json)
{
	uint8_t bytes[16];
	memcpy(bytes, &lo, 8);
	memcpy(bytes + 8, &hi, 8);
	expect(t, VALUE_BYTES, bytes, 16, c_text, json);
}

/* long double as x87 (x86-64) and as IEEE binary128 (aarch64), read
 * alike whatever this machine's own long double is. */
static void test_long_doubles(void)
{
	expect_float16(&t_x87, 0xa000000000000000ull, 0x4000, "2.5", "2.5");
	expect_float16(&t_x87, 0xc000000000000000ull, 0xbfff, "-1.5", "-1.5");
	expect_float16(&t_quad, 0, 0x3fff800000000000ull, "1.5", "1.5");
	expect_float16(&t_quad, 0x999999999999999aull, 0xbffb999999999999ull, "-0.1", "-0.1");
#if LDBL_MANT_DIG == 64
	/* x87 keeps 64 bits: the fraction's dropped bits round up, into the
	 * exponent (a quad long double reads the number exactly) */
	expect_float16(&t_quad, ~0ull, 0x3fffffffffffffffull, "2", "2");
#endif
	expect_float16(&t_quad, 0, 0x7fff000000000000ull, "inf", "\"inf\"");
	expect_float16(&t_quad, 1, 0x7fff000000000000ull, "nan", "\"nan\"");
	expect_float16(&t_quad, 0, 0x8000000000000000ull, "-0", "-0");
}

static void test_floats(void)
{
	expect_double(2.5, "2.5", "2.5");
	expect_double(0.1, "0.1", "0.1");
	expect_double(1.0 / 3, "0.3333333333333333", "0.3333333333333333");
	expect_double(1e100, "1e+100", "1e+100");
	expect_double(-0.0, "-0", "-0");
	expect_double(5e-324, "5e-324", "5e-324");
	expect_double(INFINITY, "inf", "\"inf\"");
	expect_double(-INFINITY, "-inf", "\"-inf\"");
	expect_double(NAN, "nan", "\"nan\"");
	float f = 0.1f;
	expect(&t_float, VALUE_BYTES, &f, 4, "0.1", "0.1");
	f = 16777216.0f;
	expect(&t_float, VALUE_BYTES, &f, 4, "16777216", "16777216");
}

static void test_strings_and_pointers(void)
{
	const char *said = "he said \"hi\"\n";
	expect(&t_str, VALUE_STRING, said, strlen(said), "\"he said \\\"hi\\\"\\n\"",
	       "\"he said \\\"hi\\\"\\n\"");
	expect(&t_str, VALUE_STRING_CUT, "abc", 3, "\"abc\"...", "\"abc...\"");
	expect(&t_str, VALUE_STRING, "", 0, "\"\"", "\"\"");
	expect(&t_str, VALUE_STRING, "caf\xc3\xa9", 5, "\"caf\xc3\xa9\"", "\"caf\xc3\xa9\"");
	expect(&t_str, VALUE_STRING, "\xff", 1, "\"\\xff\"", "\"\\u00ff\"");
	expect(&t_str, VALUE_STRING,
	       "\x01"
	       "a",
	       2, "\"\\x01\" \"a\"", "\"\\u0001a\"");
	expect(&t_str, VALUE_STRING, "\xc3", 1, "\"\\xc3\"", "\"\\u00c3\""); /* cut UTF-8 */
	expect(&t_str, VALUE_NULL, NULL, 0, "NULL", "null");
	uint64_t p = 0x7ffd1234;
	expect(&t_str, VALUE_UNREADABLE, &p, 8, "<unreadable 0x7ffd1234>",
	       "\"<unreadable 0x7ffd1234>\"");
	expect(&t_str, VALUE_BYTES, &p, 8, "0x7ffd1234", "\"0x7ffd1234\"");
	expect(&t_ptr, VALUE_BYTES, &p, 8, "0x7ffd1234", "\"0x7ffd1234\"");
	p = 0;
	expect(&t_ptr, VALUE_BYTES, &p, 8, "NULL", "null");
	expect(&t_int, VALUE_UNAVAILABLE, NULL, 0, "<optimized out>", "\"<optimized out>\"");
}

static void test_aggregates(void)
{
	int32_t point[2] = {-3, 4};
	expect(&t_point, VALUE_BYTES, point, 8, "{x=-3, y=4}", "{\"x\": -3, \"y\": 4}");
	expect(&t_point, VALUE_BYTES, point, 4, "{x=-3, y=?}", "{\"x\": -3, \"y\": null}");
	uint8_t outer[24];
	int32_t ints[5] = {1, 2, 10, 20, 30};
	float f = 1.5f;
	memcpy(outer, ints, 20);
	memcpy(outer + 20, &f, 4);
	expect(&t_outer, VALUE_BYTES, outer, 24,
	       "{p={x=1, y=2}, v={10, 20, 30}, i=1069547520, f=1.5}",
	       "{\"p\": {\"x\": 1, \"y\": 2}, \"v\": [10, 20, 30], \"i\": 1069547520, "
	       "\"f\": 1.5}");
	expect(NULL, VALUE_BYTES, "\x01\xab", 2, "<bytes 01 ab>", "\"<bytes 01 ab>\"");
	static const struct ctype t_empty = {.kind = CTYPE_STRUCT, .size = 1, .text = "Empty"};
	expect(&t_empty, VALUE_BYTES, NULL, 0, "{}", "{}");
}

/* A reference: its address, and the object when it was read. */
static void test_references(void)
{
	static const struct ctype t_ref = {.kind = CTYPE_POINTER,
					   .size = 8,
					   .align = 8,
					   .is_reference = true,
					   .element = &t_point,
					   .text = "const point &"};
	uint8_t bytes[16];
	uint64_t at = 0x7ffd1230;
	int32_t point[2] = {7, -2};
	memcpy(bytes, &at, 8);
	memcpy(bytes + 8, point, 8);
	expect(&t_ref, VALUE_BYTES, bytes, 16, "@0x7ffd1230: {x=7, y=-2}", "{\"x\": 7, \"y\": -2}");
	/* its object could not be read */
	expect(&t_ref, VALUE_BYTES, bytes, 8, "@0x7ffd1230", "\"0x7ffd1230\"");
	struct tagged_value v = {VALUE_BYTES, bytes, 16};
	uint64_t address = 0;
	CHECK(value_reference_address(&t_ref, &v, &address) && address == at,
	      "the address of a reference read with its object");
	v.len = 8;
	CHECK(!value_reference_address(&t_ref, &v, &address),
	      "no address beside a reference whose object was not read");
}

/* Decodes `n` bytes into values; returns how many, or -1 at a bad one. */
static int decode_all(const uint8_t *p, size_t n, struct tagged_value *out, int max)
{
	int count = 0;
	while (n > 0 && count < max) {
		size_t used = value_decode(p, n, &out[count]);
		if (used == 0 || used > n)
			return -1;
		p += used, n -= used, count++;
	}
	return count;
}

static void test_decode(void)
{
	static const uint8_t good[] = {VALUE_BYTES,
				       4,
				       0xd6,
				       0xff,
				       0xff,
				       0xff, /* -42 */
				       VALUE_STRING,
				       2,
				       'h',
				       'i', /* "hi" */
				       VALUE_NULL,
				       VALUE_UNAVAILABLE, /**/
				       VALUE_STRING_CUT,
				       1,
				       'x', /**/
				       VALUE_UNREADABLE,
				       1,
				       0x10};
	struct tagged_value v[8];
	CHECK(decode_all(good, sizeof(good), v, 8) == 6, "six values decode");
	CHECK(v[0].tag == VALUE_BYTES && v[0].len == 4 && v[0].bytes == good + 2, "bytes value");
	CHECK(v[1].tag == VALUE_STRING && v[1].len == 2 && memcmp(v[1].bytes, "hi", 2) == 0,
	      "string value");
	CHECK(v[2].tag == VALUE_NULL && v[3].tag == VALUE_UNAVAILABLE && v[2].len == 0,
	      "payload-free values");
	CHECK(v[5].tag == VALUE_UNREADABLE && v[5].len == 1, "unreadable value");
	/* every cut inside a value is refused */
	static const size_t ends[] = {6, 10, 11, 12, 15, 18};
	for (size_t cut = 1; cut < sizeof(good); cut++) {
		int whole = 0;
		for (size_t e = 0; e < 6; e++)
			whole += ends[e] <= cut;
		int ends_here = 0;
		for (size_t e = 0; e < 6; e++)
			ends_here |= ends[e] == cut;
		int got = decode_all(good, cut, v, 8);
		CHECK(got == (ends_here ? whole : -1), "cut at %zu: got %d", cut, got);
	}
	struct tagged_value one;
	static const uint8_t unknown_tag[] = {9, 0};
	static const uint8_t past_end[] = {VALUE_BYTES, 5, 1, 2};
	static const uint8_t huge[] = {VALUE_STRING, 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff,	     0xff, 0xff, 0xff, 0x01, 'a'};
	static const uint8_t overlong[] = {VALUE_BYTES, 0x80, 0x80, 0x80, 0x80, 0x80,
					   0x80,	0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t no_length[] = {VALUE_BYTES};
	CHECK(value_decode(unknown_tag, 2, &one) == 0, "an unknown tag is refused");
	CHECK(value_decode(past_end, 4, &one) == 0, "a length past the end is refused");
	CHECK(value_decode(huge, sizeof(huge), &one) == 0, "a 2^64-1 length is refused");
	CHECK(value_decode(overlong, sizeof(overlong), &one) == 0, "an 11-byte varint is refused");
	CHECK(value_decode(no_length, 1, &one) == 0, "a missing length is refused");
	CHECK(value_decode(good, 0, &one) == 0, "nothing is not a value");
	static const uint8_t empty[] = {VALUE_BYTES, 0};
	CHECK(value_decode(empty, 2, &one) == 2 && one.len == 0 && one.bytes == NULL,
	      "an empty value");
	expect(&t_int, VALUE_BYTES, NULL, 0, "?", "null");
	expect(&t_int, 42, NULL, 0, "<bad value>", "\"<bad value>\"");
}

static void test_file_output(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		CHECK(0, "open_memstream");
		return;
	}
	struct value_out o;
	value_out_init_file(&o, f);
	int32_t point[2] = {5, -6};
	struct tagged_value v = {VALUE_BYTES, (const uint8_t *)point, 8};
	value_format_json(&o, &t_point, &v);
	fclose(f);
	CHECK(text && strcmp(text, "{\"x\": 5, \"y\": -6}") == 0, "JSON into a FILE: %s",
	      text ? text : "(null)");
	free(text);
}

int main(void)
{
	test_integers();
	test_chars_bools_enums();
	test_floats();
	test_long_doubles();
	test_strings_and_pointers();
	test_aggregates();
	test_references();
	test_decode();
	test_file_output();
	return CHECK_SUMMARY("test_value_format");
}
