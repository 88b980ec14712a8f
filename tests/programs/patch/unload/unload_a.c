/* unload_a.c - the first plugin (tests/programs/plugins_reuse/main.c loads
 * it): alpha_entry, then, 64 bytes on, alpha_unused, which is never called
 * (its entry stays marked). */

__attribute__((aligned(64), noinline)) int alpha_entry(int x)
{
	return x + x + 1;
}

__attribute__((aligned(64), noinline)) int alpha_unused(int x)
{
	return x * 3;
}
