#!/usr/bin/env bash
# ring_processes.sh - record --ring with a program that forks 30 children
# one after the other, each exec'ing fib (178 calls): the windows the ended
# images leave are reused, so every child is recorded in a ring of 4 slots
# and the file grows only by the processes' records; the forker's calls are all kept (its window is
# its own), and every call made is kept or counted overwritten, to the call.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c forkexec "$PROGRAMS/launch/forkexec.c"
build_c fib "$PROGRAMS/launch/fib.c"

record fe --ring 64K --no-libcall "$WORK/forkexec" 30 "$WORK/fib"
[ "$RC" = 0 ] || fail "exit status $RC: $(head -c 300 "$WORK/fe.err")"
[ "$(grep -c 'fib(10) = 55' "$WORK/fe.out")" = 30 ] || fail "fib did not run 30 times"
# The ring, its header and table, and the records of 31 processes (their
# modules, threads; a few KiB each), which are kept whole.
size=$(stat -c %s "$WORK/fe.trace")
[ "$size" -le $((65536 + 16384 + 31 * 3072)) ] || fail "the trace has $size bytes, ring 65536"
ct info "$WORK/fe.trace" >"$WORK/fe.info"
grep -q '^problems: *0$' "$WORK/fe.info" || fail "problems: $(grep -A3 '^problems' "$WORK/fe.info")"
grep -q '^ring: *64 KiB in 4 windows of 16 KiB' "$WORK/fe.info" || fail "ring: $(grep '^ring' "$WORK/fe.info")"
kept=$(awk '/^calls:/ { print $2 }' "$WORK/fe.info")
over=$(sed -n 's/^ring: .*; [0-9]* windows (\([0-9]*\) calls) overwritten.*/\1/p' "$WORK/fe.info")
# The forker: main and 30 runs; each child: fib's main and fib(10)'s 177 calls.
[ $((kept + over)) = $((1 + 30 + 30 * 178)) ] ||
	fail "$kept kept + $over overwritten != $((1 + 30 + 30 * 178)) calls made"
ct report "$WORK/fe.trace" >"$WORK/fe.report"
[ "$(report_calls "$WORK/fe.report" run)" = 30 ] || fail "the forker's 30 runs are not all kept"
[ "$(grep -c '^    thread .* fib: 1 event window, kept' "$WORK/fe.info")" -ge 1 ] ||
	fail "no exec'd child kept: $(grep thread "$WORK/fe.info" | head -5)"
pass
