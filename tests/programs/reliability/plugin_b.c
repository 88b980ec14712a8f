/* plugin_b.c - plugin_a.c under other names: the same layout. */
int b_leaf(int x);
int b_entry(int x);

int b_leaf(int x)
{
	return x + 1;
}

int b_entry(int x)
{
	return b_leaf(x) * 2;
}
