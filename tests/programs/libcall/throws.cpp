/*
 * throws.cpp - an exception thrown through two frames and caught, three
 * times: catcher() calls thrower(1), which calls thrower(0), which throws;
 * catcher() catches it and returns.  Prints "caught 3".
 */
#include <cstdio>

__attribute__((noinline)) static void thrower(int depth)
{
	if (depth == 0)
		throw 42;
	thrower(depth - 1);
}

__attribute__((noinline)) static int catcher()
{
	try {
		thrower(1);
	} catch (int) {
		return 1;
	}
	return 0;
}

int main()
{
	int caught = 0;
	for (int i = 0; i < 3; i++)
		caught += catcher();
	std::printf("caught %d\n", caught);
	return 0;
}
