/* plugin_a.c - the first of two plugins of identical layout (plugin_b.c
 * differs only in its names and one constant): loaded, called and unloaded
 * before plugin_b is loaded, most likely at the same address. */

int alpha_entry(int x);

int alpha_twice(int x)
{
	return x + x + 1;
}

int alpha_entry(int x)
{
	return alpha_twice(x);
}
