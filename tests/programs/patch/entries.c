/*
 * entries.c - functions whose first instructions are hard to move: one that
 * starts with a call (tick: call tock at -O1), one shorter than a jump
 * (tiny: lea + ret), one that starts with a conditional jump (classify),
 * one that reads a global through %rip at once (bump), a recursive one
 * (count_down).  Each is called a known number of times; prints the
 * results and exits with status 5.
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int ticks;
int counter;

NOINLINE int tock(void)
{
	return ticks++;
}

NOINLINE int tick(void)
{
	return tock() + 1;
}

NOINLINE int tiny(int x)
{
	return 2 * x + 1;
}

NOINLINE int classify(int x)
{
	if (x < 0)
		return -1;
	return x > 100 ? 2 : 1;
}

NOINLINE void bump(void)
{
	counter++;
}

NOINLINE int count_down(int n)
{
	return n == 0 ? 0 : 1 + count_down(n - 1);
}

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 3; i++)
		sum += tick();
	for (int i = 0; i < 4; i++)
		sum += tiny(i);
	sum += classify(-5) + classify(50) + classify(500);
	bump();
	bump();
	sum += count_down(10);
	printf("sum %d counter %d\n", sum, counter);
	return 5;
}
