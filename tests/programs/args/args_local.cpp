/*
 * args_local.cpp - functions whose DWARF is inside another function's: a
 * lambda's operator() and a local struct's member function; and a value
 * whose base class has a name longer than 128 characters.
 */
#include <cstdio>

template <typename A, typename B, typename C, typename D> struct Base {
	int b;
};
struct Long_type_name_that_makes_the_template_argument_list_long_enough_0 {
};
struct Long_type_name_that_makes_the_template_argument_list_long_enough_1 {
};
struct Long_type_name_that_makes_the_template_argument_list_long_enough_2 {
};
struct Long_type_name_that_makes_the_template_argument_list_long_enough_3 {
};
struct Derived : Base<Long_type_name_that_makes_the_template_argument_list_long_enough_0,
		      Long_type_name_that_makes_the_template_argument_list_long_enough_1,
		      Long_type_name_that_makes_the_template_argument_list_long_enough_2,
		      Long_type_name_that_makes_the_template_argument_list_long_enough_3> {
	int d;
};

__attribute__((noinline)) int sum_derived(Derived v)
{
	return v.b + v.d;
}

__attribute__((noinline)) int twice_local(int x)
{
	struct Local {
		__attribute__((noinline)) static int twice(int y)
		{
			return 2 * y;
		}
	};
	return Local::twice(x);
}

int main()
{
	auto greater = [](int a, int b) __attribute__((noinline))
	{
		return a > b;
	};
	Derived v;
	v.b = 3;
	v.d = 4;
	printf("%d %d %d\n", greater(5, 2), twice_local(21), sum_derived(v));
	return 0;
}
