/*
 * test_func_signature.c - unit test of src/symbols/func_signature.c.
 *
 * Builds tests/programs/args/args.c with cc and args_cxx.cpp with c++, at
 * -O0 and at -O2, into a temporary directory, takes function addresses
 * from nm, and checks each function's description (types as C text, where
 * the calling convention puts every argument and the result: System V
 * x86-64's, or AAPCS64's in the aarch64 build, run with aarch64's cc and
 * c++ first on PATH by tests/e2e/arm64_args.sh), type
 * descriptors, capture plans and their bytes, and values formatted with the
 * DWARF types.  Also: a compiler clone, a stripped file, a missing file, an
 * address that is not an entry, and the cache.
 *
 * Usage: test_func_signature [PROGRAM_DIR]  (default: ../programs/args)
 */
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../src/format/trace_format.h"
#include "../../src/symbols/func_signature.h"
#include "../../src/views/value_format.h"
#include "check.h"

static char programs[PATH_MAX];
static char tmpdir[PATH_MAX];

static int run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* The address nm gives the symbol `name` (exact), or 0. */
static uint64_t symbol_address(const char *bin, const char *name)
{
	char cmd[2 * PATH_MAX], line[1024], sym[900];
	snprintf(cmd, sizeof(cmd), "nm '%s'", bin);
	FILE *p = popen(cmd, "r");
	uint64_t found = 0, a;
	char kind;
	while (p && fgets(line, sizeof(line), p))
		if (sscanf(line, "%" SCNx64 " %c %899s", &a, &kind, sym) == 3 &&
		    strcmp(sym, name) == 0)
			found = a;
	if (p)
		pclose(p);
	return found;
}

static const struct func_signature *lookup(struct signature_table *t, const char *bin,
					   const char *symbol)
{
	uint64_t a = symbol_address(bin, symbol);
	CHECK(a != 0, "%s: nm finds %s", bin, symbol);
	return a ? signature_table_lookup(t, bin, a) : NULL;
}

static void expect_description(struct signature_table *t, const char *bin, const char *symbol,
			       const char *want)
{
	const struct func_signature *s = lookup(t, bin, symbol);
	char got[1024] = "(no signature)";
	if (s)
		func_signature_describe(s, got, sizeof(got));
	CHECK(strcmp(got, want) == 0, "%s %s:\n  got  %s\n  want %s", bin, symbol, got, want);
}

static const char *const sysv_c[][2] = {
    {"add_ints", "int add_ints(int a @rdi:4, int b @rsi:4) @rax:4"},
    {"negate_ll", "long long int negate_ll(long long int v @rdi:8) @rax:8"},
    {"big_unsigned", "unsigned int big_unsigned(unsigned int u @rdi:4) @rax:4"},
    {"typedef_arg", "u32 typedef_arg(u32 u @rdi:4, cstr s @rsi:8) @rax:4"},
    {"next_char", "char next_char(char c @rdi:1) @rax:1"},
    {"flip", "_Bool flip(_Bool b @rdi:1) @rax:1"},
    {"paint", "enum color paint(enum color c @rdi:4) @rax:4"},
    {"halve_f", "float halve_f(float f @xmm0:4) @xmm0:4"},
    {"scale", "double scale(double d @xmm0:8, float f @xmm1:4) @xmm0:8"},
    {"measure", "size_t measure(const char *s @rdi:8) @rax:8"},
    {"maybe", "char *maybe(char *p @rdi:8, void *q @rsi:8, int *r @rdx:8) @rax:8"},
    {"point_sum", "int point_sum(struct point p @rdi:8) @rax:4"},
    {"make_point", "struct point make_point(int x @rdi:4, int y @rsi:4) @rax:8"},
    {"mixed_sum", "double mixed_sum(struct mixed m @xmm0:8,rdi:8) @xmm0:8"},
    {"make_mixed", "struct mixed make_mixed(double a @xmm0:8, long int b @rdi:8) @xmm0:8,rax:8"},
    {"big_sum", "long int big_sum(struct big b @stack+8:24) @rax:8"},
    {"make_big", "struct big make_big(long int a @rsi:8, long int b @rdx:8, long int c @rcx:8) "
		 "hidden:rdi @[rax]:24"},
    {"eight", "int eight(int a @rdi:4, int b @rsi:4, int c @rdx:4, int d @rcx:4, int e @r8:4, "
	      "int f @r9:4, int g @stack+8:4, int h @stack+16:4) @rax:4"},
    {"nine_doubles",
     "double nine_doubles(double a @xmm0:8, double b @xmm1:8, double c @xmm2:8, double d @xmm3:8, "
     "double e @xmm4:8, double f @xmm5:8, double g @xmm6:8, double h @xmm7:8, "
     "double i @stack+8:8) @xmm0:8"},
    {"sum_all", "int sum_all(int count @rdi:4, ...) @rax:4"},
    {"ld_twice", "long double ld_twice(long double x @stack+8:16, int after @rdi:4) @st0:16"},
    {"wrap_ld", "struct wrapped_ld wrap_ld(long double x @stack+8:16) @st0:16"},
    {"ld_complex", "complex long double ld_complex(long double re @stack+8:16) @st0:16,st1:16"},
    {"flags_level", "int flags_level(struct flags f @rdi:4) @rax:4"},
    {"floats_sum", "float floats_sum(struct two_floats t @xmm0:8) @xmm0:4"},
    {"named_id", "short int named_id(struct named n @rdi:8,rsi:2) @rax:2"},
    {"array_param",
     "int array_param(int *values @rdi:8, int (*)(int, int) callback @rsi:8) @rax:4"},
    {"nothing", "void nothing()"},
    {"big_then_regs", "int big_then_regs(struct big b @stack+8:24, int after @rdi:4, "
		      "struct point p @rsi:8) @rax:4"},
    {"regs_full_struct",
     "int regs_full_struct(int a @rdi:4, int b @rsi:4, int c @rdx:4, int d @rcx:4, int e @r8:4, "
     "struct point p @r9:8, long int g @stack+8:8) @rax:4"},
};

static const char *const sysv_cxx[][2] = {
    {"_ZN7Counter3addEiRKi",
     "int add(Counter *this @rdi:8, int n @rsi:4, const int &step @rdx:8) @rax:4"},
    {"_ZNK7Counter5shadeE5Shade", "Shade shade(const Counter *this @rdi:8, Shade s @rsi:1) @rax:1"},
    {"_Z12make_trackedl", "Tracked make_tracked(long int v @rsi:8) hidden:rdi @[rax]:8"},
    {"_Z13tracked_value7TrackedRd",
     "long int tracked_value(Tracked t @[rdi]:8, double &out @rsi:8) @rax:8"},
    {"_Z9swap_refsRiOi", "void swap_refs(int &a @rdi:8, int &&b @rsi:8)"},
    {"_Z8make_boxl", "Box<long int> make_box(long int v @rsi:8) hidden:rdi @[rax]:8"},
    {"_Z8take_box3BoxIlE", "long int take_box(Box<long int> b @[rdi]:8) @rax:8"},
    {"_Z10with_empty5Emptyi", "int with_empty(Empty e @-, int x @rdi:4) @rax:4"},
};

static const char *const aapcs_c[][2] = {
    {"add_ints", "int add_ints(int a @x0:4, int b @x1:4) @x0:4"},
    {"negate_ll", "long long int negate_ll(long long int v @x0:8) @x0:8"},
    {"big_unsigned", "unsigned int big_unsigned(unsigned int u @x0:4) @x0:4"},
    {"typedef_arg", "u32 typedef_arg(u32 u @x0:4, cstr s @x1:8) @x0:4"},
    {"next_char", "char next_char(char c @x0:1) @x0:1"},
    {"flip", "_Bool flip(_Bool b @x0:1) @x0:1"},
    {"paint", "enum color paint(enum color c @x0:4) @x0:4"},
    {"halve_f", "float halve_f(float f @v0:4) @v0:4"},
    {"scale", "double scale(double d @v0:8, float f @v1:4) @v0:8"},
    {"measure", "size_t measure(const char *s @x0:8) @x0:8"},
    {"maybe", "char *maybe(char *p @x0:8, void *q @x1:8, int *r @x2:8) @x0:8"},
    {"point_sum", "int point_sum(struct point p @x0:8) @x0:4"},
    {"make_point", "struct point make_point(int x @x0:4, int y @x1:4) @x0:8"},
    {"mixed_sum", "double mixed_sum(struct mixed m @x0:8,x1:8) @v0:8"},
    {"make_mixed", "struct mixed make_mixed(double a @v0:8, long int b @x0:8) @x0:8,x1:8"},
    {"big_sum", "long int big_sum(struct big b @[x0]:24) @x0:8"},
    {"make_big", "struct big make_big(long int a @x0:8, long int b @x1:8, long int c @x2:8) "
		 "hidden:x8 @[x8]:24"},
    {"eight", "int eight(int a @x0:4, int b @x1:4, int c @x2:4, int d @x3:4, int e @x4:4, int f "
	      "@x5:4, int g @x6:4, int h @x7:4) @x0:4"},
    {"nine_doubles",
     "double nine_doubles(double a @v0:8, double b @v1:8, double c @v2:8, double d @v3:8, double e "
     "@v4:8, double f @v5:8, double g @v6:8, double h @v7:8, double i @stack+0:8) @v0:8"},
    {"sum_all", "int sum_all(int count @x0:4, ...) @x0:4"},
    {"ld_twice", "long double ld_twice(long double x @v0:16, int after @x0:4) @v0:16"},
    {"wrap_ld", "struct wrapped_ld wrap_ld(long double x @v0:16) @v0:16"},
    {"ld_complex", "complex long double ld_complex(long double re @v0:16) @v0:16,v1:16"},
    {"flags_level", "int flags_level(struct flags f @x0:4) @x0:4"},
    {"floats_sum", "float floats_sum(struct two_floats t @v0:4,v1:4) @v0:4"},
    {"named_id", "short int named_id(struct named n @x0:8,x1:2) @x0:2"},
    {"array_param", "int array_param(int *values @x0:8, int (*)(int, int) callback @x1:8) @x0:4"},
    {"nothing", "void nothing()"},
    {"big_then_regs",
     "int big_then_regs(struct big b @[x0]:24, int after @x1:4, struct point p @x2:8) @x0:4"},
    {"regs_full_struct", "int regs_full_struct(int a @x0:4, int b @x1:4, int c @x2:4, int d @x3:4, "
			 "int e @x4:4, struct point p @x5:8, long int g @x6:8) @x0:4"},
};

static const char *const aapcs_cxx[][2] = {
    {"_ZN7Counter3addEiRKi",
     "int add(Counter *this @x0:8, int n @x1:4, const int &step @x2:8) @x0:4"},
    {"_ZNK7Counter5shadeE5Shade", "Shade shade(const Counter *this @x0:8, Shade s @x1:1) @x0:1"},
    {"_Z12make_trackedl", "Tracked make_tracked(long int v @x0:8) hidden:x8 @[x8]:8"},
    {"_Z13tracked_value7TrackedRd",
     "long int tracked_value(Tracked t @[x0]:8, double &out @x1:8) @x0:8"},
    {"_Z9swap_refsRiOi", "void swap_refs(int &a @x0:8, int &&b @x1:8)"},
    {"_Z8make_boxl", "Box<long int> make_box(long int v @x0:8) hidden:x8 @[x8]:8"},
    {"_Z8take_box3BoxIlE", "long int take_box(Box<long int> b @[x0]:8) @x0:8"},
    {"_Z10with_empty5Emptyi", "int with_empty(Empty e @x0:1, int x @x1:4) @x0:4"},
};

/* The tables of the convention the placement follows (main). */
struct table {
	const char *const (*rows)[2];
	size_t n;
};
#define TABLE(a) ((struct table){a, sizeof(a) / sizeof(a[0])})
static bool sysv;
static struct table c_expected, cxx_expected, plans_expected;

/* Formats bytes as a VALUE_BYTES of type t, as C and as JSON. */
static void expect_bytes(const struct ctype *t, const void *bytes, size_t n, const char *c_text,
			 const char *json)
{
	struct tagged_value v = {VALUE_BYTES, bytes, n};
	struct value_out o;
	value_out_init_buffer(&o);
	value_format_c(&o, t, &v);
	CHECK(strcmp(value_out_text(&o), c_text) == 0, "%s as C: got %s, want %s", t->text,
	      value_out_text(&o), c_text);
	value_out_reset(&o);
	value_format_json(&o, t, &v);
	CHECK(strcmp(value_out_text(&o), json) == 0, "%s as JSON: got %s, want %s", t->text,
	      value_out_text(&o), json);
	value_out_free(&o);
}

static void check_c_types(struct signature_table *t, const char *bin)
{
	const struct func_signature *s = lookup(t, bin, "typedef_arg");
	if (s) {
		const struct ctype *u = s->params[0].type, *str = s->params[1].type;
		CHECK(u->kind == CTYPE_INT && u->size == 4 && !u->is_signed, "u32 is unsigned int");
		CHECK(str->kind == CTYPE_STRING && strcmp(str->text, "cstr") == 0,
		      "cstr is a string named cstr");
		CHECK(s->plan.args[1].count == 1 &&
			  s->plan.steps[s->plan.args[1].first].op == PLAN_STRING_REG &&
			  strcmp(value_reg_name(s->plan.steps[s->plan.args[1].first].reg),
				 sysv ? "rsi" : "x1") == 0,
		      "typedef_arg: the string is read through the second register");
	}
	s = lookup(t, bin, "paint");
	if (s) {
		const struct ctype *e = s->params[0].type;
		CHECK(e->kind == CTYPE_ENUM && e->n_enumerators == 3 && e->size == 4,
		      "enum color has 3 enumerators");
		CHECK(e->n_enumerators == 3 && strcmp(e->enumerators[2].name, "BLUE") == 0 &&
			  e->enumerators[2].value == 7,
		      "BLUE = 7");
		uint32_t green = 1, other = 5;
		expect_bytes(e, &green, 4, "GREEN", "\"GREEN\"");
		expect_bytes(e, &other, 4, "5", "5");
	}
	s = lookup(t, bin, "flags_level");
	if (s) {
		const struct ctype *f = s->params[0].type;
		CHECK(f->kind == CTYPE_STRUCT && f->n_members == 4, "struct flags has 4 members");
		if (f->n_members == 4) {
			const struct ctype_member *m = f->members;
			CHECK(m[1].offset == 0 && m[1].bit_offset == 1 && m[1].bit_size == 3,
			      "mode: bits 1..3, got %u.%u:%u", m[1].offset, m[1].bit_offset,
			      m[1].bit_size);
			CHECK(m[2].bit_offset == 4 && m[2].bit_size == 4 && m[2].type->is_signed,
			      "level: signed bits 4..7");
			CHECK(m[3].offset == 1 && m[3].bit_size == 0, "tag at byte 1");
		}
		/* ready=1, mode=5, level=-3, tag='x' */
		uint8_t bytes[4] = {0x01 | 5 << 1 | 0xd << 4, 'x', 0, 0};
		expect_bytes(f, bytes, 4, "{ready=1, mode=5, level=-3, tag='x'}",
			     "{\"ready\": 1, \"mode\": 5, \"level\": -3, \"tag\": \"x\"}");
	}
	s = lookup(t, bin, "named_id");
	if (s) {
		uint8_t bytes[10] = {'a', 'b', 'c', 0, 0, 0, 0, 0, 7, 0};
		expect_bytes(s->params[0].type, bytes, 10, "{name=\"abc\", id=7}",
			     "{\"name\": \"abc\", \"id\": 7}");
	}
	s = lookup(t, bin, "mixed_sum");
	if (s) {
		uint8_t bytes[16];
		double a = 2.5;
		int64_t b = -1234567890123;
		memcpy(bytes, &a, 8);
		memcpy(bytes + 8, &b, 8);
		expect_bytes(s->params[0].type, bytes, 16, "{a=2.5, b=-1234567890123}",
			     "{\"a\": 2.5, \"b\": -1234567890123}");
	}
}

/* Each step of a plan as "op reg size@value_offset offset", for comparing. */
static void plan_text(const struct func_plan *p, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%u args%s:", p->nargs, p->has_return ? " ret" : "");
	for (unsigned i = 0; i < p->nsteps && n < len; i++) {
		const struct plan_step *s = &p->steps[i];
		n += (size_t)snprintf(buf + n, len - n, " %u/%u/%u/%u/%d", s->op, s->reg, s->size,
				      s->value_offset, s->offset);
	}
	for (unsigned i = 0; i <= p->nargs && n < len; i++) {
		const struct plan_value *v = i < p->nargs ? &p->args[i] : &p->ret;
		n += (size_t)snprintf(buf + n, len - n, " [%u+%u:%u]", v->first, v->count, v->size);
	}
}

static void check_plan_bytes(const struct func_signature *s, const char *what)
{
	uint8_t bytes[2048];
	size_t n = func_plan_serialize(&s->plan, bytes, sizeof(bytes));
	CHECK(n > 0 && n == func_plan_serialized_size(&s->plan), "%s: plan serialized", what);
	struct func_plan back;
	char a[4096], b[4096];
	CHECK(func_plan_parse(bytes, n, &back) == 0, "%s: plan parses back", what);
	plan_text(&s->plan, a, sizeof(a));
	plan_text(&back, b, sizeof(b));
	CHECK(strcmp(a, b) == 0, "%s: plan round trip\n  %s\n  %s", what, a, b);
	CHECK(func_plan_serialize(&s->plan, bytes, n - 1) == 0, "%s: too small a buffer", what);
	for (size_t cut = 0; cut < n; cut++)
		if (func_plan_parse(bytes, cut, &back) == 0) {
			CHECK(0, "%s: a plan cut to %zu bytes parses", what, cut);
			break;
		}
	/* every single-byte change is either refused or still a valid plan */
	for (size_t i = 0; i < n; i++) {
		uint8_t copy[2048];
		memcpy(copy, bytes, n);
		copy[i] ^= 0xff;
		if (func_plan_parse(copy, n, &back) == 0)
			for (unsigned k = 0; k < back.nargs; k++)
				if (back.args[k].first + back.args[k].count > back.nsteps)
					CHECK(0, "%s: flipped byte %zu gives a bad plan", what, i);
	}
}

/* Plans as plan_text writes them (registers by number: enum value_reg). */
static const char *const sysv_plans[][2] = {
    {"add_ints", "2 args ret: 0/0/4/0/0 0/1/4/0/0 0/6/4/0/0 [0+1:4] [1+1:4] [2+1:4]"},
    {"measure", "1 args ret: 3/0/8/0/0 0/6/8/0/0 [0+1:0] [1+1:8]"},
    {"big_sum", "1 args ret: 1/0/24/0/8 0/6/8/0/0 [0+1:24] [1+1:8]"},
    {"mixed_sum", "1 args ret: 0/7/8/0/0 0/0/8/8/0 0/7/8/0/0 [0+2:16] [2+1:8]"},
    {"make_big", "3 args ret: 0/1/8/0/0 0/2/8/0/0 0/3/8/0/0 2/6/24/0/0 [0+1:8] [1+1:8] "
		 "[2+1:8] [3+1:24]"},
    {"ld_twice", "2 args ret: 1/0/16/0/8 0/0/4/0/0 0/15/16/0/0 [0+1:16] [1+1:4] [2+1:16]"},
    {"nothing", "0 args: [0+0:0]"},
};

static const char *const aapcs_plans[][2] = {
    {"add_ints", "2 args ret: 0/0/4/0/0 0/1/4/0/0 0/0/4/0/0 [0+1:4] [1+1:4] [2+1:4]"},
    {"measure", "1 args ret: 3/0/8/0/0 0/0/8/0/0 [0+1:0] [1+1:8]"},
    {"big_sum", "1 args ret: 2/0/24/0/0 0/0/8/0/0 [0+1:24] [1+1:8]"},
    {"mixed_sum", "1 args ret: 0/0/8/0/0 0/1/8/8/0 0/9/8/0/0 [0+2:16] [2+1:8]"},
    {"make_big", "3 args ret: 0/0/8/0/0 0/1/8/0/0 0/2/8/0/0 2/8/24/0/0 [0+1:8] [1+1:8] "
		 "[2+1:8] [3+1:24]"},
    {"ld_twice", "2 args ret: 0/9/16/0/0 0/0/4/0/0 0/9/16/0/0 [0+1:16] [1+1:4] [2+1:16]"},
    {"floats_sum", "1 args ret: 0/9/4/0/0 0/10/4/4/0 0/9/4/0/0 [0+2:8] [2+1:4]"},
    {"nothing", "0 args: [0+0:0]"},
};

static void check_plans(struct signature_table *t, const char *bin)
{
	for (size_t i = 0; i < plans_expected.n; i++) {
		const char *name = plans_expected.rows[i][0], *want = plans_expected.rows[i][1];
		const struct func_signature *s = lookup(t, bin, name);
		char got[4096] = "(none)";
		if (s)
			plan_text(&s->plan, got, sizeof(got));
		CHECK(strcmp(got, want) == 0, "%s plan:\n  got  %s\n  want %s", name, got, want);
	}
	for (size_t i = 0; i < c_expected.n; i++) {
		const struct func_signature *s = lookup(t, bin, c_expected.rows[i][0]);
		if (s)
			check_plan_bytes(s, c_expected.rows[i][0]);
	}
	static const uint8_t garbage[][8] = {"CTP2\0\0\0", "CTP1\x21\0\0", "CTP1\0\2\0"};
	struct func_plan p;
	for (size_t i = 0; i < 3; i++)
		CHECK(func_plan_parse(garbage[i], 8, &p) < 0, "garbage plan %zu refused", i);
}

static void check_clone(struct signature_table *t, const char *bin, int optimized)
{
	const char *name = optimized ? "scaled.constprop.0" : "scaled";
	uint64_t a = symbol_address(bin, name);
	if (!a) {
		printf("note: %s has no %s (this compiler did not clone it)\n", bin, name);
		return;
	}
	const struct func_signature *s = signature_table_lookup(t, bin, a);
	CHECK(s && s->abi_known == !optimized, "%s: %s is %s", bin, name,
	      optimized ? "a clone (its own convention)" : "normal");
	if (s && optimized)
		CHECK(s->nparams == 2 && s->params[1].loc.where == WHERE_UNSUPPORTED &&
			  s->plan.steps[s->plan.args[0].first].op == PLAN_UNAVAILABLE,
		      "clone: parameters not located, the plan says unavailable");
}

static void check_edges(struct signature_table *t, const char *bin)
{
	uint64_t a = symbol_address(bin, "add_ints");
	const struct func_signature *s1 = signature_table_lookup(t, bin, a);
	CHECK(s1 && signature_table_lookup(t, bin, a) == s1, "the same pointer again");
	CHECK(signature_table_lookup(t, bin, a + 1) == NULL, "not an entry: no signature");
	CHECK(signature_table_lookup(t, "/nonexistent/calltrace/args", a) == NULL,
	      "missing file: no signature");
	char stripped[PATH_MAX + 64];
	snprintf(stripped, sizeof(stripped), "%s.stripped", bin);
	if (run("strip -g -o '%s' '%s'", stripped, bin) == 0)
		CHECK(signature_table_lookup(t, stripped, a) == NULL,
		      "no debug info: no signature");
}

static void test_c(const char *opt)
{
	char src[PATH_MAX + 16], bin[PATH_MAX + 16];
	snprintf(src, sizeof(src), "%s/args.c", programs);
	snprintf(bin, sizeof(bin), "%s/args%s", tmpdir, opt);
	if (run("cc -g %s -o '%s' '%s'", opt, bin, src) != 0) {
		CHECK(0, "cc %s builds args.c", opt);
		return;
	}
	struct signature_table *t = signature_table_new();
	for (size_t i = 0; i < c_expected.n; i++)
		expect_description(t, bin, c_expected.rows[i][0], c_expected.rows[i][1]);
	check_c_types(t, bin);
	check_plans(t, bin);
	check_clone(t, bin, strcmp(opt, "-O0") != 0);
	check_edges(t, bin);
	signature_table_free(t);
}

static void test_cxx(const char *opt)
{
	char src[PATH_MAX + 16], bin[PATH_MAX + 16];
	snprintf(src, sizeof(src), "%s/args_cxx.cpp", programs);
	snprintf(bin, sizeof(bin), "%s/args_cxx%s", tmpdir, opt);
	if (run("c++ -g %s -o '%s' '%s'", opt, bin, src) != 0) {
		CHECK(0, "c++ %s builds args_cxx.cpp", opt);
		return;
	}
	struct signature_table *t = signature_table_new();
	for (size_t i = 0; i < cxx_expected.n; i++)
		expect_description(t, bin, cxx_expected.rows[i][0], cxx_expected.rows[i][1]);
	const struct func_signature *s = lookup(t, bin, "_ZNK7Counter5shadeE5Shade");
	if (s && s->nparams == 2) {
		uint8_t dark = 2;
		expect_bytes(s->params[1].type, &dark, 1, "Dark", "\"Dark\"");
		CHECK(s->params[0].artificial, "this is artificial");
	}
	s = lookup(t, bin, "_Z13tracked_value7TrackedRd");
	CHECK(s && s->params[0].type->by_reference, "Tracked is passed by reference");
	/* a reference's object is read after its pointer */
	s = lookup(t, bin, "_ZN7Counter3addEiRKi");
	char got[4096] = "(none)";
	if (s)
		plan_text(&s->plan, got, sizeof(got));
	const char *want = sysv ? "3 args ret: 0/0/8/0/0 0/1/4/0/0 0/2/8/0/0 6/0/4/8/0 0/6/4/0/0 "
				  "[0+1:8] [1+1:4] [2+2:12] [4+1:4]"
				: "3 args ret: 0/0/8/0/0 0/1/4/0/0 0/2/8/0/0 6/0/4/8/0 0/0/4/0/0 "
				  "[0+1:8] [1+1:4] [2+2:12] [4+1:4]";
	CHECK(strcmp(got, want) == 0, "Counter::add plan:\n  got  %s\n  want %s", got, want);
	if (s)
		check_plan_bytes(s, "Counter::add");
	signature_table_free(t);
}

static int find_programs(int argc, char **argv)
{
	char guess[PATH_MAX];
	if (argc > 1) {
		snprintf(guess, sizeof(guess), "%s", argv[1]);
	} else {
		char here[PATH_MAX];
		snprintf(here, sizeof(here), "%s", __FILE__);
		snprintf(guess, sizeof(guess), "%s/../programs/args", dirname(here));
	}
	if (!realpath(guess, programs)) {
		fprintf(stderr, "test_func_signature: no programs at %s\n", guess);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (find_programs(argc, argv) < 0)
		return 1;
	sysv = strcmp(value_reg_name(VREG_HIDDEN_RESULT), "rdi") == 0;
	c_expected = sysv ? TABLE(sysv_c) : TABLE(aapcs_c);
	cxx_expected = sysv ? TABLE(sysv_cxx) : TABLE(aapcs_cxx);
	plans_expected = sysv ? TABLE(sysv_plans) : TABLE(aapcs_plans);
	if (run("for tool in cc c++ nm strip; do command -v $tool || exit 1; done >/dev/null")) {
		fprintf(stderr, "test_func_signature: needs cc, c++, nm and strip on PATH\n");
		return 77;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(tmpdir, sizeof(tmpdir), "%s/test_func_signature.XXXXXX",
		 tmp && *tmp ? tmp : P_tmpdir);
	if (!mkdtemp(tmpdir)) {
		perror("test_func_signature: mkdtemp");
		return 1;
	}
	test_c("-O0");
	test_c("-O2");
	test_cxx("-O0");
	test_cxx("-O2");
	run("rm -rf '%s'", tmpdir);
	return CHECK_SUMMARY("test_func_signature");
}
