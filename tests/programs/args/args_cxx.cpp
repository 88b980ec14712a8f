// args_cxx.cpp - C++ calls for tests/unit/test_func_signature.c: a method
// (this is the first argument), reference parameters, an enum class and a
// class returned through the hidden pointer because it is not trivially
// copyable, a class template that is not either, an empty class.
#define KEEP __attribute__((noinline, noclone, used))

enum class Shade : unsigned char { Light = 1, Dark = 2 };

struct Counter {
	int count;
	KEEP int add(int n, const int &step);
	KEEP Shade shade(Shade s) const;
};

int Counter::add(int n, const int &step)
{
	count += n * step;
	return count;
}

Shade Counter::shade(Shade s) const
{
	return count > 0 ? s : Shade::Light;
}

struct Tracked {
	long value;
	Tracked(long v) : value(v) {}
	Tracked(const Tracked &other) : value(other.value + 1) {}
	~Tracked() {}
};

KEEP Tracked make_tracked(long v)
{
	return Tracked(v);
}

KEEP long tracked_value(Tracked t, double &out)
{
	out = (double)t.value;
	return t.value;
}

KEEP void swap_refs(int &a, int &&b)
{
	a = b;
}

// Not trivially copyable through its copy constructor alone, which is
// named Box, not Box<int>.
template <typename T> struct Box {
	T value;
	Box(T v) : value(v) {}
	Box(const Box &other) : value(other.value) {}
};

KEEP Box<long> make_box(long v)
{
	return Box<long>(v);
}

KEEP long take_box(Box<long> b)
{
	return b.value;
}

struct Empty {};

KEEP int with_empty(Empty e, int x)
{
	(void)e;
	return x;
}

volatile int vi = 3;

int main()
{
	Counter c{vi};
	int step = 2;
	double out = 0;
	c.add(vi, step);
	c.shade(Shade::Dark);
	long v = tracked_value(make_tracked(vi), out);
	int x = vi;
	swap_refs(x, vi + 1);
	long b = take_box(make_box(vi));
	int e = with_empty(Empty{}, vi);
	return (int)(v + x + (long)out + b + e) & 0;
}
