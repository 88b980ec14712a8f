/*
 * tree.c - a fixed call tree with one slow branch, for the filters and the
 * report:
 *
 *   main
 *     parse_input -> read_token x3
 *     compute -> slow_step (sleeps 100 ms) -> slow_inner
 *             -> fast_step -> fast_inner x2
 *     emit_output -> format_line x2
 */
#include <stdio.h>
#include <time.h>

static int read_token(int i)
{
	return i + 1;
}

static int parse_input(void)
{
	int sum = 0;
	for (int i = 0; i < 3; i++)
		sum += read_token(i);
	return sum;
}

static int slow_inner(int x)
{
	return x + 1;
}

static int slow_step(int x)
{
	struct timespec pause = {0, 100 * 1000 * 1000};
	nanosleep(&pause, NULL);
	return slow_inner(x);
}

static int fast_inner(int x)
{
	return x * 2;
}

static int fast_step(int x)
{
	int a = fast_inner(x);
	return fast_inner(a);
}

static int compute(int x)
{
	int a = slow_step(x);
	return fast_step(a);
}

static void format_line(const char *label, int v)
{
	printf("%s: %d\n", label, v);
}

static void emit_output(int parsed, int computed)
{
	format_line("parsed", parsed);
	format_line("computed", computed);
}

int main(void)
{
	int parsed = parse_input();
	int computed = compute(parsed);
	emit_output(parsed, computed);
	return 0;
}
