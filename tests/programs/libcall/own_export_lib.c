/*
 * own_export_lib.c - a shared library of the program's own whose `outer`
 * calls its own exported `inner` through the library's PLT (the default
 * for an export: it could be interposed).  inner is long enough for the
 * in-process engine's jump; tiny_inner is not.  See own_export_main.c.
 */
volatile int own_export_sink;

int inner(int x)
{
	for (int i = 0; i < 3; i++)
		own_export_sink += x * i;
	return x + own_export_sink;
}

int tiny_inner(int x)
{
	return x + 1;
}

int outer(int x)
{
	return inner(x) * 2 + tiny_inner(x);
}
