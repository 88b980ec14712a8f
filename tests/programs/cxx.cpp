/*
 * cxx.cpp - C++ names for the demangler and an exception thrown through
 * instrumented frames.
 *
 * Namespaces (shapes, shapes::detail), a class with a constructor, a
 * destructor, overloaded, const and static methods, a function template with
 * two instantiations, and shapes::dive(int), which recurses three levels with
 * a Widget on each frame and throws from shapes::fail_now(int); try_dive()
 * catches it and then calls after_catch().  No standard library templates, so
 * that every instrumented function is one of ours.
 */
#include <cstdio>

namespace shapes
{

struct Failure {
	int code;
};

class Widget
{
      public:
	explicit Widget(int size);
	~Widget();
	int run(int times);
	double run(double scale);
	int size() const;
	static int count();

      private:
	int size_;
	static int live_;
};

int Widget::live_ = 0;

Widget::Widget(int size) : size_(size)
{
	live_++;
}

Widget::~Widget()
{
	live_--;
}

int Widget::run(int times)
{
	return size_ * times;
}

double Widget::run(double scale)
{
	return size_ * scale;
}

int Widget::size() const
{
	return size_;
}

int Widget::count()
{
	return live_;
}

template <typename T> T twice(T v)
{
	return v + v;
}

namespace detail
{
const char *label(const char *text)
{
	return text;
}
} // namespace detail

int fail_now(int code)
{
	throw Failure{code};
}

int dive(int depth)
{
	Widget guard(depth);
	if (depth == 0)
		return fail_now(7);
	return dive(depth - 1) + guard.size();
}

} // namespace shapes

static int after_catch(int code)
{
	return code + 100;
}

static int try_dive()
{
	int result;
	try {
		result = shapes::dive(2);
	} catch (const shapes::Failure &f) {
		result = f.code;
	}
	return after_catch(result);
}

static void use_widget()
{
	shapes::Widget w(3);
	int a = w.run(2);
	double b = w.run(0.5);
	int c = w.size();
	int n = shapes::Widget::count();
	std::printf("widget: %d %.1f %d %d\n", a, b, c, n);
}

static void use_templates()
{
	int i = shapes::twice(21);
	double d = shapes::twice(1.25);
	const char *s = shapes::detail::label("label");
	std::printf("templates: %d %.2f %s\n", i, d, s);
}

int main()
{
	use_widget();
	use_templates();
	int caught = try_dive();
	std::printf("caught: %d live: %d\n", caught, shapes::Widget::count());
	return 0;
}
