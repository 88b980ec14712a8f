/*
 * plain_names.c - functions whose names begin alike, for -F/-N by a plain
 * name: main calls parse_all (-> parse_line), parse (-> parse_line) and
 * reparse.  Prints "plain_names 3".
 */
#include <stdio.h>

#define NOINLINE __attribute__((noinline))

static volatile int lines;

static NOINLINE void parse_line(void)
{
	lines++;
}

static NOINLINE void parse_all(void)
{
	parse_line();
}

static NOINLINE void parse(void)
{
	parse_line();
}

static NOINLINE void reparse(void)
{
	lines++;
}

int main(void)
{
	parse_all();
	parse();
	reparse();
	printf("plain_names %d\n", lines);
	return 0;
}
