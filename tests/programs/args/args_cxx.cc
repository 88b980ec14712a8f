// args_cxx.cc - C++ arguments (tests/e2e/args_capture.sh): `this`,
// references (shown with what they refer to), a method's return value, a
// class template that is not trivially copyable (passed and returned
// through a hidden pointer), a destructor's artificial parameters, an
// empty class, long double (complex too), and a template argument with
// parentheses.
#include <cstdio>

#ifdef __clang__
#define KEEP __attribute__((noinline, used))
#else
#define KEEP __attribute__((noinline, noclone, used))
#endif

struct Counter {
	long total = 5;
	KEEP long add(long by, const int &times) { total += by * times; return total; }
};

KEEP int twice(int &x) { x *= 2; return x; }

// Copying it adds one to extra: the copy constructor makes it non-trivial.
template <typename T> struct Box {
	T val;
	long extra;
	Box(T v, long e) : val(v), extra(e) {}
	Box(const Box &o) : val(o.val), extra(o.extra + 1) {}
};

KEEP Box<int> make_box(int v) { return Box<int>(v, 9); }
KEEP long take_box(Box<int> b) { return b.val + b.extra; }

volatile int sink;

struct Guard {
	int id;
	KEEP ~Guard() { sink = id; }
};

struct Empty {};
KEEP int with_empty(Empty e, int x) { (void)e; return x + 1; }

KEEP long double scale_ld(long double x, int by) { return x * by; }
KEEP _Complex long double ld_pair(long double re)
{
	_Complex long double c;
	__real__ c = re;
	__imag__ c = 2 * re;
	return c;
}

struct Item {
	int id;
	double price;
};
KEEP double total(const Item &it) { return it.id * it.price; }

KEEP bool less_than(int a, int b) { return a < b; }
template <typename F> KEEP int apply(int a, int b, F f) { return f(a, b); }

int main()
{
	Counter c;
	int t = 3, y = 21;
	long r = c.add(4, t);
	int z = twice(y);
	Box<int> box = make_box(7);
	long boxed = take_box(box);
	{
		Guard g{5};
	}
	int e = with_empty(Empty{}, 4);
	long double ld = scale_ld(1.5L, 3);
	long double im = __imag__ ld_pair(1.25L);
	Item it{7, 2.25};
	double price = total(it);
	int less = apply<bool (*)(int, int)>(1, 2, less_than);
	std::printf("%ld %d %ld %d %Lg %g %d %Lg\n", r, z, boxed, e, ld, price, less, im);
	return 0;
}
