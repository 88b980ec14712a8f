/* args_aapcs.c - values AAPCS64 places its own way, for
 * tests/e2e/arm64_args.sh: homogeneous floating-point aggregates (HFAs) in
 * v registers, as arguments and results; a 12-byte struct in two x
 * registers; a struct over 16 bytes passed by a pointer and one returned
 * where x8 points; a long double in a q register; a 16-byte integer in an
 * even pair of x registers; a complex double; more than eight arguments of
 * each kind (the rest on the stack); an HFA that finds no v registers left
 * and the float after it that does not take one either. */
#include <complex.h>
#include <stdio.h>

#define KEEP __attribute__((noinline, noclone, used))

struct hfa3 {
	float a, b, c;
};
struct hfa4d {
	double a, b, c, d;
};
struct twelve {
	int a, b, c;
};
struct big {
	long a, b, c;
};

KEEP float hfa_sum(struct hfa3 h)
{
	return h.a + h.b + h.c;
}
KEEP struct hfa4d hfa_make(double x)
{
	struct hfa4d r = {x, x + 1, x + 2, x + 3};
	return r;
}
KEEP int twelve_sum(struct twelve t)
{
	return t.a + t.b + t.c;
}
KEEP long big_sum(struct big b)
{
	return b.a + b.b + b.c;
}
KEEP struct big big_make(long a)
{
	struct big r = {a, a * 2, a * 3};
	return r;
}
KEEP long double ld_half(long double x)
{
	return x / 2;
}
KEEP __int128 wide_add(int pad, __int128 v)
{
	return v + pad;
}
KEEP double complex twice(double complex z)
{
	return 2 * z;
}
KEEP long ten(int a, int b, int c, int d, int e, int f, int g, int h, int i, long j)
{
	return a + b + c + d + e + f + g + h + i + j;
}
KEEP double ten_d(double a, double b, double c, double d, double e, double f, double g, double h,
		  double i, double j)
{
	return a + b + c + d + e + f + g + h + i + j;
}
KEEP double no_v_left(struct hfa4d h, struct hfa3 g, struct hfa3 late, float f, int n)
{
	return h.a + g.b + late.c + f + n;
}

int main(void)
{
	double total = hfa_sum((struct hfa3){1.5f, 2.0f, 3.0f});
	total += hfa_make(0.5).d;
	total += twelve_sum((struct twelve){1, 2, 3});
	total += (double)big_sum((struct big){10, 20, 30});
	total += (double)big_make(7).c;
	total += (double)ld_half(5.0L);
	total += (double)(wide_add(4, (__int128)1 << 64) >> 64);
	total += creal(twice(1.25 + 2.5 * I));
	total += (double)ten(1, 2, 3, 4, 5, 6, 7, 8, 9, 10000000000L);
	total += ten_d(1, 2, 3, 4, 5, 6, 7, 8, 9.5, 10.25);
	total += no_v_left((struct hfa4d){1, 2, 3, 4}, (struct hfa3){5, 6, 7},
			   (struct hfa3){8, 9, 10.5f}, 11.25f, 12);
	printf("total %.4f\n", total);
	return 0;
}
