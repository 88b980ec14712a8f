/*
 * syscall_loop.c - N system calls and little else, for the per-call cost
 * of recording system calls (bench/kernel_bench.sh).
 *
 * usage: syscall_loop N [getppid|read]   (read: 1 byte of /dev/zero)
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	int use_read = argc > 2 && strcmp(argv[2], "read") == 0;
	int fd = use_read ? open("/dev/zero", O_RDONLY) : -1;
	char byte;
	for (long i = 0; i < n; i++) {
		if (use_read) {
			if (read(fd, &byte, 1) != 1)
				return 1;
		} else {
			getppid();
		}
	}
	return 0;
}
