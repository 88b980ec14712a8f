// cxx_names.cpp - C++ names for record-time filters: a namespace, a class
// with an overloaded method, a std::string and a std:: template instantiated
// in the program.  Prints 15.
#include <algorithm>
#include <cstdio>
#include <string>

namespace shop {
class Parser {
public:
	int parse(std::string *text);
	int parse(int n);

private:
	int count(const std::string &text);
};

__attribute__((noinline)) int Parser::count(const std::string &text)
{
	return std::max<int>((int)text.size(), 1);
}

__attribute__((noinline)) int Parser::parse(std::string *text)
{
	return count(*text) + parse(1);
}

__attribute__((noinline)) int Parser::parse(int n)
{
	return std::max<int>(n, 0) + 1;
}
} // namespace shop

__attribute__((noinline)) static int run(shop::Parser &p, std::string &s)
{
	int total = 0;
	for (int i = 0; i < 3; i++)
		total += p.parse(&s);
	return total;
}

int main()
{
	shop::Parser p;
	std::string s = "abc";
	std::printf("%d\n", run(p, s));
	return 0;
}
