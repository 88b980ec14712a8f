/*
 * worker.cpp - a C++ library that main.cpp loads with dlopen and first
 * calls from a signal handler (see main.cpp).
 */
namespace sigsafe
{
struct Worker {
	static int run(int x);
	static int step(int x);
};

__attribute__((noinline)) int Worker::step(int x)
{
	return x + 1;
}

__attribute__((noinline)) int Worker::run(int x)
{
	return step(x) * 2;
}
} // namespace sigsafe
