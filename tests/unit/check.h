/*
 * check.h - the unit tests' one assertion: CHECK(condition, message...)
 * counts a pass or prints the failure with its place; a test ends with
 * CHECK_SUMMARY(name), the "N passed, N failed" line, as its exit status.
 */
#ifndef CALLTRACE_TEST_CHECK_H
#define CALLTRACE_TEST_CHECK_H

#include <stdio.h>

static int passed, failed;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (cond) {                                                                        \
			passed++;                                                                  \
		} else {                                                                           \
			failed++;                                                                  \
			printf("FAIL %s:%d: ", __FILE__, __LINE__);                                \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

#define CHECK_SUMMARY(name)                                                                        \
	(printf("%s: %d passed, %d failed\n", (name), passed, failed), failed != 0)

#endif
