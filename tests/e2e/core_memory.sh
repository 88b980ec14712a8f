#!/usr/bin/env bash
# core_memory.sh - the traced program's memory does not grow with the length
# of the run: peak RSS (VmHWM, printed by the program itself) with 10 million
# calls is less than 1.3 times the peak with 1 million.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c longrun "$PROGRAMS/longrun.c"

# hwm NAME: the VmHWM in kB that the traced run printed.
hwm() {
	awk '$1 == "VmHWM:" { print $2 }' "$WORK/$1.out"
}

record small "$WORK/longrun" 1000000
[ "$RC" = 0 ] || fail "longrun 1000000 exited $RC"
record big "$WORK/longrun" 10000000
[ "$RC" = 0 ] || fail "longrun 10000000 exited $RC"
small=$(hwm small)
big=$(hwm big)
[ -n "$small" ] && [ -n "$big" ] || fail "no VmHWM line in the output"
awk -v s="$small" -v b="$big" 'BEGIN { exit !(b < 1.3 * s) }' ||
	fail "peak RSS $big kB with 10M calls vs $small kB with 1M: ratio $(awk -v s="$small" -v b="$big" 'BEGIN { printf "%.2f", b / s }') >= 1.3"

# The calls were really recorded.
ct report "$WORK/small.trace" >"$WORK/small.report"
calls=$(report_calls "$WORK/small.report" tick)
[ "$calls" = 1000000 ] || fail "report counts $calls calls of tick, not 1000000"
pass
