/*
 * args.c - functions whose arguments and return values cover the x86-64
 * System V calling convention: integers of every width, char, bool, enums,
 * floating point, strings, pointers, small structs in registers, big ones
 * in memory, arguments past the sixth register, variadic functions and a
 * struct returned through the hidden pointer.  tests/unit/test_func_signature.c
 * compiles it at -O0 and -O2 and checks what DWARF says about each one.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define KEEP __attribute__((noinline, noclone, used))

enum color { RED, GREEN, BLUE = 7 };
typedef unsigned int u32;
typedef const char *cstr;

struct point {
	int x, y;
};
struct mixed {
	double a;
	long b;
};
struct big {
	long a, b, c;
};
struct flags {
	unsigned ready : 1;
	unsigned mode : 3;
	signed level : 4;
	char tag;
};
struct two_floats {
	float f, g;
};
struct named {
	char name[8];
	short id;
};

volatile long sink;

KEEP int add_ints(int a, int b)
{
	return a + b;
}
KEEP long long negate_ll(long long v)
{
	return -v;
}
KEEP unsigned int big_unsigned(unsigned int u)
{
	return u / 2;
}
KEEP u32 typedef_arg(u32 u, cstr s)
{
	return u + (s != NULL);
}
KEEP char next_char(char c)
{
	return (char)(c + 1);
}
KEEP bool flip(bool b)
{
	return !b;
}
KEEP enum color paint(enum color c)
{
	return c == RED ? GREEN : c;
}
KEEP float halve_f(float f)
{
	return f / 2;
}
KEEP double scale(double d, float f)
{
	return d * f;
}
KEEP size_t measure(const char *s)
{
	size_t n = 0;
	while (s && s[n])
		n++;
	return n;
}
KEEP char *maybe(char *p, void *q, int *r)
{
	sink = (long)q + (r ? *r : 0);
	return p;
}
KEEP int point_sum(struct point p)
{
	return p.x + p.y;
}
KEEP struct point make_point(int x, int y)
{
	struct point p = {x, y};
	return p;
}
KEEP double mixed_sum(struct mixed m)
{
	return m.a + (double)m.b;
}
KEEP struct mixed make_mixed(double a, long b)
{
	struct mixed m = {a, b};
	return m;
}
KEEP long big_sum(struct big b)
{
	return b.a + b.b + b.c;
}
KEEP struct big make_big(long a, long b, long c)
{
	struct big r = {a, b, c};
	return r;
}
KEEP int eight(int a, int b, int c, int d, int e, int f, int g, int h)
{
	return a + b + c + d + e + f + g + h;
}
KEEP double nine_doubles(double a, double b, double c, double d, double e, double f, double g,
			 double h, double i)
{
	return a + b + c + d + e + f + g + h + i;
}
KEEP int sum_all(int count, ...)
{
	va_list ap;
	va_start(ap, count);
	int total = 0;
	for (int i = 0; i < count; i++)
		total += va_arg(ap, int);
	va_end(ap);
	return total;
}
KEEP long double ld_twice(long double x, int after)
{
	return x * 2 + after;
}
struct wrapped_ld {
	long double v;
};
KEEP struct wrapped_ld wrap_ld(long double x)
{
	struct wrapped_ld w = {x / 2};
	return w;
}
KEEP _Complex long double ld_complex(long double re)
{
	return re + 2.0Li * re;
}
KEEP int flags_level(struct flags f)
{
	return f.level + f.mode + f.ready;
}
KEEP float floats_sum(struct two_floats t)
{
	return t.f + t.g;
}
KEEP short named_id(struct named n)
{
	return n.id + n.name[0];
}
KEEP int array_param(int values[4], int (*callback)(int, int))
{
	return callback(values[0], values[1]);
}
KEEP void nothing(void)
{
	sink++;
}
KEEP int big_then_regs(struct big b, int after, struct point p)
{
	return (int)b.a + after + p.x;
}
KEEP int regs_full_struct(int a, int b, int c, int d, int e, struct point p, long g)
{
	return a + b + c + d + e + p.x + (int)g;
}

/* No noclone: at -O2 GCC makes scaled.constprop.0, which takes only v. */
static __attribute__((noinline)) int scaled(int v, int factor)
{
	return v * factor + (int)sink;
}

volatile int vi = 40;
volatile double vd = 2.5;

int main(void)
{
	static char text[] = "he said \"hi\"\n";
	int values[4] = {vi, 2, 3, 4};
	struct point p = {vi, 4};
	struct mixed m = {vd, vi};
	struct big b = {vi, 2, 3};
	struct flags f = {1, 5, -3, 'x'};
	struct two_floats t = {1.5f, 2.0f};
	struct named n = {"abc", 7};
	sink = add_ints(vi, 2) + negate_ll(vi * 1000000000000LL) + big_unsigned(4000000000u + vi);
	sink += typedef_arg(vi, text) + next_char((char)vi) + flip(vi) + paint(vi);
	sink += (long)halve_f((float)vd) + (long)scale(vd, 0.1f) + (long)measure(text);
	sink += (long)maybe(NULL, &p, &values[1]);
	sink += point_sum(p) + make_point(vi, 1).y + (long)mixed_sum(m) + (long)make_mixed(vd, 3).b;
	sink += big_sum(b) + make_big(vi, 1, 2).c + eight(vi, 2, 3, 4, 5, 6, 7, 8);
	sink += (long)nine_doubles(vd, 1, 2, 3, 4, 5, 6, 7, 8) + sum_all(3, vi, 2, 3);
	sink += (long)ld_twice(vd, vi) + flags_level(f) + (long)floats_sum(t) + named_id(n);
	sink += array_param(values, add_ints) + big_then_regs(b, vi, p);
	sink += regs_full_struct(vi, 2, 3, 4, 5, p, 7) + (long)wrap_ld(vd).v +
		(long)__real__ ld_complex(vd);
	sink += scaled(vi, 3) + scaled(vi + 1, 3);
	nothing();
	return 0;
}
