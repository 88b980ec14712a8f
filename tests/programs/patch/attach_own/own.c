/* own.c - libown.so, the attach target's own library (see main.c). */

__attribute__((noinline)) static int own_tock(int x)
{
	return x * 3;
}

int own_tick(int x)
{
	return own_tock(x) + 1;
}
