/*
 * throw_loop.cc - a process to attach to whose calls end by exceptions: a
 * third of the calls of throw_maybe throw through throw_middle to a catch in
 * throw_round, over and over, until the file STOPFILE exists.  Prints the
 * round sum and the number of rounds that came out different (an exception
 * that went astray), and exits with status 3.  Writes its pid to PIDFILE.
 *
 * Usage: throw_loop PIDFILE STOPFILE
 */
#include <cstdio>
#include <stdexcept>
#include <unistd.h>

__attribute__((noinline)) static int throw_maybe(int x)
{
	if (x % 3 == 0)
		throw std::runtime_error("third");
	return x;
}

__attribute__((noinline)) static int throw_middle(int x)
{
	return throw_maybe(x) + 1;
}

__attribute__((noinline)) static long throw_round()
{
	long sum = 0;
	for (int i = 0; i < 300; i++) {
		try {
			sum += throw_middle(i);
		} catch (const std::exception &) {
			sum -= 1;
		}
	}
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: throw_loop PIDFILE STOPFILE\n");
		return 2;
	}
	long first = throw_round(), bad = 0;
	std::FILE *f = std::fopen(argv[1], "w");
	if (!f || std::fprintf(f, "%d\n", (int)getpid()) < 0 || std::fclose(f) != 0)
		return 2;
	while (access(argv[2], F_OK) != 0)
		if (throw_round() != first)
			bad++;
	std::printf("round sum %ld, bad rounds %ld\n", first, bad);
	return 3;
}
