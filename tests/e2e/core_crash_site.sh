#!/usr/bin/env bash
# core_crash_site.sh - a fault in a function's own first instruction (a
# load through a null pointer, at -O2 all the function does) under the
# in-process engine: that instruction runs from the trampoline's copy of the
# function's first instructions, and is the program's own code, not
# calltrace's: the report names the function and does not blame calltrace.
# One call completed before it: "last call completed before it".
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/crash_first.c
gcc -std=gnu11 -g -O2 -Wall -Wextra -o "$WORK/crash_first" "$src" || fail "cannot compile crash_first"
line_of() { # FUNCTION: the line of its first instruction, as addr2line says
	local at
	at=$(nm "$WORK/crash_first" | awk -v f="$1" '$3 == f { print $1 }')
	addr2line -e "$WORK/crash_first" "0x$at" | sed 's/.*://; s/ .*//'
}

record first --engine patch "$WORK/crash_first" x
[ "$RC" = 139 ] || fail "exit status $RC, not 139"
ct crash -o "$WORK/first.crash" "$WORK/first.trace"
cat >"$WORK/first.expected" <<EXPECTED
  in load at crash_first.c:$(line_of load)
calls open at the crash (innermost first):
  #0   load at crash_first.c:$(line_of load)
  #1   main at crash_first.c:$(line_of main)
last call completed before it:
EXPECTED
sed -n '2,6p' "$WORK/first.crash" | sed 's/  (call [0-9]*)$//' >"$WORK/first.got"
expect_text "the report" "$WORK/first.expected" "$WORK/first.got"
sed -n 7p "$WORK/first.crash" | grep -q " prelude at crash_first.c:$(line_of prelude)$" ||
	fail "the call completed before it: $(sed -n 7p "$WORK/first.crash")"
# record says the same on stderr
grep -q "^calltrace:   in load at crash_first.c:$(line_of load)$" "$WORK/first.err" ||
	fail "record's report: $(grep -m1 '^calltrace:   in ' "$WORK/first.err")"
pass
