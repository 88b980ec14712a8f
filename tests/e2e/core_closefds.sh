#!/usr/bin/env bash
# core_closefds.sh - a program that closes every descriptor and opens its own
# file keeps its descriptor numbers and its data, and its calls after the
# close are still recorded (enough of them to need new event windows).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c closefds "$PROGRAMS/closefds.c"

n=200000
run_plain cf "$WORK/closefds" "$WORK/own.plain" "$n"
record cf "$WORK/closefds" "$WORK/own.traced" "$n"
sed -i "s|$WORK/own.traced|$WORK/own.plain|" "$WORK/cf.out"
same_as_plain cf
grep -qx "first fd 3" "$WORK/cf.out" || fail "the program's first open did not get fd 3: $(head -1 "$WORK/cf.out")"
cmp -s "$WORK/own.plain" "$WORK/own.traced" || fail "the program's own file differs when traced"
ct report "$WORK/cf.trace" >"$WORK/cf.report"
calls=$(report_calls "$WORK/cf.report" work)
[ "$calls" = $((2 * n)) ] || fail "work was recorded $calls times, not $((2 * n))"
pass
