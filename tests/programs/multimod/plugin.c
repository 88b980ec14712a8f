/* plugin.c - the plugin of the multi-module test program: loaded with dlopen,
 * called once through dlsym, then unloaded with dlclose. */

int pl_entry(int x);

static int pl_double(int x)
{
	return 2 * x;
}

int pl_entry(int x)
{
	return pl_double(x);
}
