/*
 * test_view_names.c - the short names the views show (symbol_short_name,
 * view_short_name): a demangled C++ name's scope and name, without return
 * type, template arguments, parameters, qualifiers or ABI tags, operators
 * kept readable, lambdas with their number; C names unchanged.  And how
 * views tell apart the names that would show alike (view_names_apart).
 */
#include "../../src/views/view_names.h"
#include "../../src/views/view_util.h"

#include <string.h>

#include "check.h"

static void expect_short(const char *name, const char *want)
{
	char buf[256];
	const char *got = view_short_name(name, buf, sizeof(buf));
	CHECK(strcmp(got, want) == 0, "short name of '%s' is '%s', not '%s'", name, got, want);
}

/* Two overloads and two same-named statics: told apart by parameters and
 * by file; a name shown once stays alone. */
static void expect_apart(void)
{
	const struct symbol syms[] = {
	    {.name = "shapes::area", .full_name = "shapes::area(double)", .file = "/s/n.cpp"},
	    {.name = "scale", .full_name = "scale", .file = "/s/static_a.c"},
	    {.name = "shapes::area",
	     .full_name = "shapes::area(double, double)",
	     .file = "/s/n.cpp"},
	    {.name = "scale", .full_name = "scale", .file = "/s/static_b.c"},
	    {.name = "main", .full_name = "main", .file = "/s/static_b.c"},
	};
	const struct symbol *ptrs[5];
	for (int i = 0; i < 5; i++)
		ptrs[i] = &syms[i];
	unsigned char how[5];
	CHECK(view_names_apart(ptrs, 5, how) == 0, "names apart");
	static const char *const want[] = {"shapes::area(double)", "scale (static_a.c)",
					   "shapes::area(double, double)", "scale (static_b.c)",
					   "main"};
	for (int i = 0; i < 5; i++) {
		char buf[256];
		const char *got = view_name_told_apart(&syms[i], how[i], buf, sizeof(buf));
		CHECK(strcmp(got, want[i]) == 0, "told apart: '%s', not '%s'", got, want[i]);
		CHECK(symbol_name_is(&syms[i], want[i]), "'%s' names its function", want[i]);
	}
	CHECK(!symbol_name_is(&syms[0], "shapes::area(double, double)"),
	      "an overload is not another");
	CHECK(!symbol_name_is(&syms[1], "scale (static_b.c)"), "a static is not another's");
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
		     "std::operator+");
	expect_short("shapes::Widget::~Widget()", "shapes::Widget::~Widget");
	expect_short("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper");
	expect_short("main::{lambda(int)#1}::operator()(int) const",
		     "main::{lambda#1}::operator()");
	expect_short("bool operator< <int>(P<int> const&, P<int> const&)", "operator<");
	expect_short("ns::Box<double>::operator<<(int)", "ns::Box::operator<<");
	expect_short(
	    "std::basic_ostream<char, std::char_traits<char> >& std::operator<< "
	    "<std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, "
	    "char const*)",
	    "std::operator<<");
	expect_short("std::vector<std::vector<int, std::allocator<int> >, "
		     "std::allocator<std::vector<int, std::allocator<int> > > >::size() const",
		     "std::vector::size");
	expect_short("void apply<bool (*)(int)>(int, bool (*)(int))", "apply");
	expect_short("int call(int (*)(int, char), void (*)())", "call");
	expect_short("void (anonymous namespace)::Cache::put(int&&) &&",
		     "(anonymous namespace)::Cache::put");
	expect_short("shapes::name[abi:cxx11]() const", "shapes::name");
	expect_short("std::__cxx11::basic_string<char, std::char_traits<char>, "
		     "std::allocator<char> > shapes::describe[abi:cxx11](std::__cxx11::"
		     "basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
		     "shapes::describe");
	expect_short("Vec::operator[](unsigned long) const", "Vec::operator[]");
	expect_short("Vec::operator new[](unsigned long)", "Vec::operator new[]");
	expect_short("operator delete(void*, unsigned long)", "operator delete");
	expect_short("Str::operator std::__cxx11::basic_string<char, std::char_traits<char>, "
		     "std::allocator<char> >() const",
		     "Str::operator std::__cxx11::basic_string");
	expect_short("P::operator->() const", "P::operator->");
	expect_short("P::operator()() &&", "P::operator()");
	expect_short("auto run<int>(int)::{lambda(int, char)#2}::operator()(int, char) const",
		     "run::{lambda#2}::operator()");
	expect_short("void std::__cxx11::basic_string<char, std::char_traits<char>, "
		     "std::allocator<char> >::_M_construct<char const*>(char const*, char const*, "
		     "std::forward_iterator_tag)::_Guard::~_Guard()",
		     "std::__cxx11::basic_string::_M_construct::_Guard::~_Guard");
	expect_short("scale.constprop.0", "scale.constprop.0");
	expect_short("sub_401000", "sub_401000");
	expect_apart();
	char small[5];
	CHECK(strcmp(view_short_name("shapes::dive(int)", small, sizeof(small)), "shap") == 0,
	      "cut to the buffer");
	return CHECK_SUMMARY("test_view_names");
}
