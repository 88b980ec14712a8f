// args_cxx.cc - C++ arguments: `this`, references, a method's return value
// (tests/e2e/args_capture.sh).
#include <cstdio>

#define KEEP __attribute__((noinline, used))

struct Counter {
	long total = 5;
	KEEP long add(long by, const int &times) { total += by * times; return total; }
};

KEEP int twice(int &x) { x *= 2; return x; }

int main()
{
	Counter c;
	int t = 3, y = 21;
	long r = c.add(4, t);
	int z = twice(y);
	std::printf("%ld %d\n", r, z);
	return 0;
}
