/*
 * coroutine.c - swapcontext between the main stack and a coroutine's
 * stack, three times each way, with calls on both sides: returns of one
 * stack must not disturb the frames kept for the other.  Prints "33".
 */
#include <stdio.h>
#include <ucontext.h>

#define NOINLINE __attribute__((noinline))

static ucontext_t main_ctx, co_ctx;
static char co_stack[256 << 10];

NOINLINE int leaf(int x)
{
	return x + 1;
}

NOINLINE void co_body(void)
{
	for (int i = 0; i < 3; i++) {
		leaf(i);
		swapcontext(&co_ctx, &main_ctx);
	}
}

NOINLINE void co_entry(void)
{
	co_body();
}

NOINLINE int driver(void)
{
	int sum = 0;
	for (int i = 0; i < 3; i++) {
		sum += leaf(i * 10);
		swapcontext(&main_ctx, &co_ctx);
	}
	return sum;
}

int main(void)
{
	getcontext(&co_ctx);
	co_ctx.uc_stack.ss_sp = co_stack;
	co_ctx.uc_stack.ss_size = sizeof(co_stack);
	co_ctx.uc_link = &main_ctx;
	makecontext(&co_ctx, co_entry, 0);
	printf("%d\n", driver());
	return 0;
}
