/* unload_b.c - the second plugin (tests/programs/plugins_reuse/main.c
 * loads it): bravo_entry lies where alpha_entry was and runs, 64 bytes on
 * (where alpha_unused began), an int3 of its own, for the program's
 * SIGTRAP handler. */

__attribute__((aligned(64), noinline)) int bravo_entry(int x)
{
	__asm__ volatile(".p2align 6\n\tint3");
	return x + x + 2;
}

__attribute__((aligned(64), noinline)) int bravo_unused(int x)
{
	return x * 5;
}
