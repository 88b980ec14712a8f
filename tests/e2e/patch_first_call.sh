#!/usr/bin/env bash
# patch_first_call.sh - the in-process engine marks every entry at start and
# patches a function at its first call: a program of 45 functions of which
# 3 run has exactly the functions that ran patched (said by -v, each one a
# function of the trace), every call recorded; a function one byte long
# with no padding after it (too short for the jump) keeps its mark and is
# recorded through its trap, every call.  A program started with SIGTRAP
# blocked runs as untraced, every call recorded.  `info` gives the counts
# -v says, from the trace (written at the exit, and at a crash).
source "$(dirname "$0")/lib.sh"
setup

gcc -std=gnu11 -g -O0 -pthread -o "$WORK/first_call" "$PROGRAMS/patch/first_call.c" ||
	fail "cannot compile first_call"

# marked_ran NAME: "MARKED RAN" from -v's last summary.
marked_ran() {
	sed -n 's/^calltrace: in-process engine: \([0-9]*\) functions marked, \([0-9]*\) ran$/\1 \2/p' \
		"$WORK/$1.err" | tail -n 1
}

run_plain few "$WORK/first_call" few
record few --engine patch --no-cache -v "$WORK/first_call" few
same_as_plain few
counts few >"$WORK/few.counts"
info_functions() {
	ct info "$WORK/$1.trace" | grep '^    functions:' || true
}
expect_text "few: calls" - "$WORK/few.counts" <<'COUNTS'
few 1
main 1
used_once 1
used_thrice 3
used_twice 2
COUNTS
read -r marked ran < <(marked_ran few) || fail "few: -v does not say what was marked and ran: $(grep engine "$WORK/few.err")"
# 37 unused functions and 5 that run, at least; exactly the 5 ran.
[ "$marked" -ge 42 ] || fail "few: only $marked functions marked"
[ "$ran" = 5 ] || fail "few: $ran functions ran (patched), 5 expected"
grep -qx "calltrace: in-process engine: 5 of $marked functions patched" "$WORK/few.err" ||
	fail "few: $(grep 'functions patched' "$WORK/few.err")"
[ "$(info_functions few)" = "    functions: $marked marked, 5 ran (patched)" ] ||
	fail "few: info says '$(info_functions few)', -v $marked marked and 5 ran"

run_plain short "$WORK/first_call" short
record short --engine patch --no-cache -v "$WORK/first_call" short
same_as_plain short
counts short >"$WORK/short.counts"
expect_text "short: calls" - "$WORK/short.counts" <<'COUNTS'
after_tiny 1
main 1
short_entry 1
tiny_ret 1000
COUNTS
read -r marked ran < <(marked_ran short) || fail "short: -v says nothing of marks"
[ "$ran" = 4 ] || fail "short: $ran functions ran, 4 expected"
grep -qx "calltrace: in-process engine: 4 of $marked functions patched; 1 through its trap (too short to hold a jump)" "$WORK/short.err" ||
	fail "short: $(grep 'functions patched' "$WORK/short.err")"
[ "$(info_functions short)" = "    functions: $marked marked, 4 ran (patched), 1 through its trap" ] ||
	fail "short: info says '$(info_functions short)'"

# A crash: the counts are written by the handler of the fatal signal
# (main, prelude, prelude_leaf, crash_outer, crash_inner ran).
gcc -std=gnu11 -g -O0 -o "$WORK/crash" "$PROGRAMS/crash.c" || fail "cannot compile crash"
RC=0
"$CALLTRACE" record -o "$WORK/segv.trace" --engine patch --no-cache -v "$WORK/crash" segv \
	>"$WORK/segv.out" 2>"$WORK/segv.err" || RC=$?
[ "$RC" = 139 ] || fail "crash segv: exit $RC, 139 expected"
marked=$(sed -n 's/^calltrace: in-process engine: \([0-9]*\) functions marked (.*/\1/p' "$WORK/segv.err")
[ -n "$marked" ] || fail "crash segv: -v says nothing of marks: $(grep engine "$WORK/segv.err")"
[ "$(info_functions segv)" = "    functions: $marked marked, 5 ran (patched)" ] ||
	fail "crash segv: info says '$(info_functions segv)', $marked marked and 5 ran expected"

# Started with SIGTRAP blocked (a parent's mask, a posix_spawn's): the
# marks' traps must still reach the runtime, the program run as untraced.
blocked_trap() {
	python3 -c 'import os, signal, sys
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTRAP})
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}
run_plain masked "$WORK/first_call" few
RC=0
{ blocked_trap "$CALLTRACE" record -o "$WORK/masked.trace" --engine patch --no-cache "$WORK/first_call" few \
	>"$WORK/masked.out" 2>"$WORK/masked.err" || RC=$?; } 2>/dev/null
[ "$RC" = "$PLAIN_RC" ] || fail "started with SIGTRAP blocked: exit $RC, $PLAIN_RC untraced"
same_as_plain masked
counts masked >"$WORK/masked.counts"
cmp -s "$WORK/few.counts" "$WORK/masked.counts" ||
	fail "started with SIGTRAP blocked: other calls: $(tr '\n' ' ' <"$WORK/masked.counts")"
pass
