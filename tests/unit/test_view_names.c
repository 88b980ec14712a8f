/*
 * test_view_names.c - view_short_name: a demangled C++ name's scope and
 * name, without return type, template arguments or parameters, operators
 * kept whole; C names unchanged.
 */
#include "../../src/views/view_util.h"

#include <string.h>

#include "check.h"

static void expect_short(const char *name, const char *want)
{
	char buf[256];
	const char *got = view_short_name(name, buf, sizeof(buf));
	CHECK(strcmp(got, want) == 0, "short name of '%s' is '%s', not '%s'", name, got, want);
}

int main(void)
{
	expect_short("main", "main");
	expect_short("walk", "walk");
	expect_short("shapes::dive(int)", "shapes::dive");
	expect_short("int shapes::twice<int>(int)", "shapes::twice");
	expect_short("std::vector<int, std::allocator<int> >::push_back(int const&)",
		     "std::vector::push_back");
	expect_short("std::__cxx11::basic_string<char, std::char_traits<char>, "
		     "std::allocator<char> > std::operator+<char, std::char_traits<char>, "
		     "std::allocator<char> >(char const*, std::__cxx11::basic_string<char, "
		     "std::char_traits<char>, std::allocator<char> > const&)",
		     "std::operator+<char, std::char_traits<char>, std::allocator<char> >");
	expect_short("shapes::Widget::~Widget()", "shapes::Widget::~Widget");
	expect_short("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper");
	expect_short("main::{lambda(int)#1}::operator()(int) const",
		     "main::{lambda(int)#1}::operator()");
	expect_short("bool operator< <int>(P<int> const&, P<int> const&)", "operator< <int>");
	expect_short("ns::Box<double>::operator<<(int)", "ns::Box::operator<<");
	char small[5];
	CHECK(strcmp(view_short_name("shapes::dive(int)", small, sizeof(small)), "shap") == 0,
	      "cut to the buffer");
	return CHECK_SUMMARY("test_view_names");
}
