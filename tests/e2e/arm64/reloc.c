/* reloc.c - aarch64 functions whose first instruction reads the program
 * counter (arm64_engines.sh): each moved into a trampoline must give the
 * same result. */
#include <stdio.h>
long f_adr(void);
long f_adrp(void);
long f_ldr_x(void);
long f_ldr_w(void);
long f_ldrsw(void);
double f_ldr_d(void);
long f_cbz(long);
long f_cbnz(long);
long f_tbz(long);
long f_tbnz(long);
long f_b(long);
long f_bcond(long);
long g_target(long x)
{
	return x * 3;
}
long value_page = 1234;
__asm__(".text\n.p2align 3\n"
	".globl f_adr\n.type f_adr,%function\nf_adr: adr x0, 1f\n ldr x0, [x0]\n ret\n.p2align "
	"3\n1: .quad 11\n.size f_adr,.-f_adr\n"
	".globl f_adrp\n.type f_adrp,%function\nf_adrp: adrp x0, value_page\n add x0, x0, "
	":lo12:value_page\n ldr x0, [x0]\n ret\n.size f_adrp,.-f_adrp\n"
	".globl f_ldr_x\n.type f_ldr_x,%function\nf_ldr_x: ldr x0, 1f\n ret\n.p2align 3\n1: .quad "
	"0x123456789\n.size f_ldr_x,.-f_ldr_x\n"
	".globl f_ldr_w\n.type f_ldr_w,%function\nf_ldr_w: ldr w0, 1f\n ret\n.p2align 3\n1: .quad "
	"0xffffffff00000042\n.size f_ldr_w,.-f_ldr_w\n"
	".globl f_ldrsw\n.type f_ldrsw,%function\nf_ldrsw: ldrsw x0, 1f\n ret\n.p2align 3\n1: "
	".word -5\n.word 0\n.size f_ldrsw,.-f_ldrsw\n"
	".globl f_ldr_d\n.type f_ldr_d,%function\nf_ldr_d: ldr d0, 1f\n ret\n.p2align 3\n1: "
	".double 2.5\n.size f_ldr_d,.-f_ldr_d\n"
	".globl f_cbz\n.type f_cbz,%function\nf_cbz: cbz x0, 1f\n mov x0, #7\n ret\n1: mov x0, "
	"#9\n ret\n.size f_cbz,.-f_cbz\n"
	".globl f_cbnz\n.type f_cbnz,%function\nf_cbnz: cbnz x0, 1f\n mov x0, #7\n ret\n1: mov x0, "
	"#9\n ret\n.size f_cbnz,.-f_cbnz\n"
	".globl f_tbz\n.type f_tbz,%function\nf_tbz: tbz x0, #1, 1f\n mov x0, #7\n ret\n1: mov x0, "
	"#9\n ret\n.size f_tbz,.-f_tbz\n"
	".globl f_tbnz\n.type f_tbnz,%function\nf_tbnz: tbnz x0, #1, 1f\n mov x0, #7\n ret\n1: mov "
	"x0, #9\n ret\n.size f_tbnz,.-f_tbnz\n"
	".globl f_b\n.type f_b,%function\nf_b: b g_target\n.size f_b,.-f_b\n"
	".globl f_bcond\n.type f_bcond,%function\nf_bcond: b.eq 1f\n mov x0, #7\n ret\n1: mov x0, "
	"#9\n ret\n.size f_bcond,.-f_bcond\n");
static long bcond(long v)
{
	register long x0 __asm__("x0") = v;
	__asm__ volatile("cmp x0, #0\n\tbl f_bcond" : "+r"(x0) : : "x30", "cc", "memory");
	return x0;
}
int main(void)
{
	printf("%ld %ld %ld %ld %ld %g\n", f_adr(), f_adrp(), f_ldr_x(), f_ldr_w(), f_ldrsw(),
	       f_ldr_d());
	printf("%ld %ld %ld %ld %ld %ld\n", f_cbz(0), f_cbz(1), f_cbnz(0), f_cbnz(1), f_tbz(2),
	       f_tbz(1));
	printf("%ld %ld %ld %ld %ld\n", f_tbnz(2), f_tbnz(1), f_b(5), bcond(0), bcond(1));
	return 0;
}
