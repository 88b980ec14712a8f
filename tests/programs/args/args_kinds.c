/* args_kinds.c - functions taking and returning every kind of value the
 * argument capture must show exactly (tests/e2e/args_*.sh), built by gcc
 * and by clang. */
/* One line a function, as the tests read them: */
/* clang-format off */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#ifdef __clang__ /* no noclone; as_int's asm keeps a call whose result clang knows */
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noclone, used))
#endif

enum color { RED, GREEN, BLUE };
struct point { int x, y; };
struct box { double w, h; };
struct big { long a, b, c, d; };
union number { int i; float f; };

KEEP int add_ints(int a, int b) { return a + b; }
KEEP long long wide(long long v, unsigned int u) { return v - (long long)u; }
KEEP unsigned char small(signed char s, unsigned short h) { return (unsigned char)(s + h); }
KEEP char next_char(char c) { return (char)(c + 1); }
KEEP bool negate(bool b) { return !b; }
KEEP enum color shift(enum color c, int by) { return (enum color)(((int)c + by) % 4); }
KEEP double scale(float f, double d) { return f * d; }
KEEP size_t measure(const char *s) { return s ? strlen(s) : 0; }
KEEP const char *pick(const char *a, char *b, int first) { return first ? a : b; }
KEEP int deref(int *p) { return p ? *p : -1; }
KEEP struct point flip(struct point p) { struct point q = {p.y, p.x}; return q; }
KEEP double area(struct box b) { return b.w * b.h; }
KEEP struct big make_big(long a) { struct big g = {a, a + 1, a + 2, a + 3}; return g; }
KEEP int as_int(union number n) { __asm__ volatile(""); return n.i; }
KEEP long many(int a, int b, int c, int d, int e, int f, int g, long h) { return a + b + c + d + e + f + g + h; }
KEEP int sum_va(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int); va_end(ap); return s; }
KEEP uintptr_t peek(const char *s) { __asm__ volatile(""); return (uintptr_t)s; }
KEEP void nothing(void) { __asm__ volatile(""); }
KEEP void mutate(char *buf, int at) { buf[at] = 'X'; }

int main(void)
{
	char text[16] = "hello";
	int value = 7;
	int total = add_ints(40, 2);
	total += (int)wide(-1234567890123LL, 4000000000u);
	total += small(-5, 60000);
	total += next_char('x');
	total += negate(true);
	total += (int)shift(GREEN, 1);
	total += (int)shift(BLUE, 2);
	total += (int)scale(2.5f, -0.75);
	total += (int)measure("tab\there \"q\"");
	total += (int)measure(NULL);
	total += (int)strlen(pick("first", text, 0));
	total += deref(&value);
	struct point p = flip((struct point){-3, 4});
	total += p.x;
	total += (int)area((struct box){1.5, 2.0});
	total += (int)make_big(10).d;
	union number n = {.i = 99};
	total += as_int(n);
	total += (int)many(1, 2, 3, 4, 5, 6, 7, 8000000000L);
	total += sum_va(3, 10, 20, 30);
	/* Pointers the capture must not follow: into no mapping, and into a
	 * page the program has unmapped since the capture last saw it. */
	total += (int)(peek((const char *)16) & 1);
	char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	strcpy(page, "mapped");
	total += (int)measure(page);
	munmap(page, 4096);
	total += (int)(peek(page) & 1);
	nothing();
	mutate(text, 0);
	printf("total %d %s\n", total, text);
	return 0;
}
