/* ver.c - libver: vfunc in two versions (ver.map), VER_1 returns 1 and
 * the default, VER_2, returns 2. */
int vfunc_one(void)
{
	return 1;
}

int vfunc_two(void)
{
	return 2;
}
__asm__(".symver vfunc_one, vfunc@VER_1");
__asm__(".symver vfunc_two, vfunc@@VER_2");
