/* plugin_b.c - the second of two plugins of identical layout (see
 * plugin_a.c): its functions sit where plugin_a's were. */

int bravo_entry(int x);

int bravo_twice(int x)
{
	return x + x + 2;
}

int bravo_entry(int x)
{
	return bravo_twice(x);
}
