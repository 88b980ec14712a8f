/* plugin.c - dlopen'ed by host.c: its work calls into the C library. */
#include <unistd.h>

int plugin_work(int x)
{
	return x * 10 + (getpid() > 0);
}
