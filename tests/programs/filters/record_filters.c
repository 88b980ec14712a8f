/* record_filters.c - work() calls helper() and leaf(), other() calls leaf():
 * what record -F, -N and -D keep (tests/e2e/record_filters.sh). */
/* One line a function, as the tests read them: */
/* clang-format off */
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) int helper(int x) { return leaf(x) * 2; }
__attribute__((noinline)) int work(int x) { return helper(x) + leaf(x); }
__attribute__((noinline)) int other(int x) { return leaf(x) - 1; }
int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += work(i) + other(i); printf("%d\n", s); return 0; }
