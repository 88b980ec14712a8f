/* plugin_a.c - a plugin dlopen'd and dlclose'd again and again. */
int a_leaf(int x);
int a_entry(int x);

int a_leaf(int x)
{
	return x + 1;
}

int a_entry(int x)
{
	return a_leaf(x) * 2;
}
