/*
 * names.cpp - C++ names for the views' short names: namespaces, a class
 * template, overloads, std::string, an operator, a lambda and an anonymous
 * namespace.  Each function is called a known number of times.
 */
#include <cstdio>
#include <string>

namespace shapes
{

double area(double side)
{
	return side * side;
}

double area(double w, double h)
{
	return w * h;
}

std::string describe(const std::string &what)
{
	return "shape " + what;
}

template <typename T> struct Box {
	T value;
	T get() const
	{
		return value;
	}
	Box operator+(const Box &other) const
	{
		return Box{value + other.value};
	}
};

} // namespace shapes

namespace
{
int helper(int v)
{
	return v + 1;
}
} // namespace

int main()
{
	double total = shapes::area(2.0) + shapes::area(3.0) + shapes::area(2.0, 5.0);
	std::string text = shapes::describe("square");
	shapes::Box<int> a{1}, b{2};
	shapes::Box<int> c = a + b;
	auto twice = [](int v) { return helper(v) * 2; };
	int t = twice(c.get());
	printf("%.1f %s %d\n", total, text.c_str(), t);
	return 0;
}
