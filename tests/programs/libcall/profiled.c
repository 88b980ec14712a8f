/* profiled.c - built with -pg: mcount is called from every function with
 * that function's arguments still in the registers (a varargs one reads
 * them after), so its slot must never be hooked. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
size_t total(int n, ...)
{
	va_list ap;
	va_start(ap, n);
	size_t t = 0;
	for (int i = 0; i < n; i++)
		t += strlen(va_arg(ap, const char *));
	va_end(ap);
	return t;
}
int main(void)
{
	printf("%zu\n", total(3, "ab", "cde", "f"));
	return 0;
}
