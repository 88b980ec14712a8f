/*
 * args_local.cpp - functions whose DWARF is inside another function's: a
 * lambda's operator() and a local struct's member function; a value whose
 * base class has a name longer than 128 characters; overloads that differ
 * only in const.
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

struct P {
	int v;
	__attribute__((noinline)) int get(int k) const
	{
		return v + k;
	}
	__attribute__((noinline)) int get(int k)
	{
		return v - k;
	}
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
	P p{5};
	const P &c = p;
	int got = c.get(1);
	printf("%d %d %d %d %d\n", greater(5, 2), twice_local(21), sum_derived(v), got, p.get(1));
	return 0;
}
