/*
 * own_calls.c - a program whose system calls between its start and its end
 * are known exactly: 300 getppid, among 20000 calls of a small function
 * (many full event windows with a small --buffer-size), a dlopen (a module
 * record), then one write.
 */
#include <dlfcn.h>
#include <unistd.h>

static volatile int sink;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

__attribute__((noinline)) static void work(void)
{
	for (int i = 0; i < 20000; i++) {
		leaf(i);
		if (i % 1000 == 0)
			for (int j = 0; j < 15; j++)
				getppid();
	}
}

int main(void)
{
	work();
	void *m = dlopen("libm.so.6", RTLD_NOW);
	(void)m;
	return write(1, "done\n", 5) == 5 ? 0 : 1;
}
