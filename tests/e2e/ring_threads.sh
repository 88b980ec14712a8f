#!/usr/bin/env bash
# ring_threads.sh - record --ring with more threads than the ring has
# whole windows to spare.  Nine threads in a ring of 16 windows (eight
# busy all the while, one that calls 25 times and ends): the ended
# thread's window stays (all 25 calls), and no thread's run of windows is
# said to have windows missing.  Twenty-one threads, more than the ring has
# windows: those that found no window of their own are counted in info, and
# the trace reads without a problem.  A ring larger than the free space of
# the trace's filesystem is refused in one line, and no trace is left.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c ring_crash "$PROGRAMS/ring/ring_crash.c"

EARLY=1000000 LAST=1000

check_readable() { # NAME: info finds no problem and no window missing
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	grep -q '^problems: *0$' "$WORK/$1.info" ||
		fail "$1: the reader found problems: $(grep -A3 '^problems' "$WORK/$1.info")"
	! grep -q 'missing' "$WORK/$1.info" || fail "$1: $(grep missing "$WORK/$1.info" | head -n 3)"
}

record nine --ring 256K --no-libcall "$WORK/ring_crash" $EARLY $LAST 9 ended
[ "$RC" = 139 ] || fail "nine: exit $RC: $(head -c 300 "$WORK/nine.err")"
check_readable nine
grep -q '^ring: *256 KiB in 16 windows' "$WORK/nine.info" || fail "nine: $(grep ring "$WORK/nine.info")"
ct report "$WORK/nine.trace" >"$WORK/nine.report"
[ "$(report_calls "$WORK/nine.report" rare_work)" = 25 ] ||
	fail "nine: $(report_calls "$WORK/nine.report" rare_work) calls of rare_work kept, not 25"
# The main thread wrote the most windows, so it is the first to give one up
# among threads holding as many: with nine writers in sixteen windows it
# may keep its working window alone, cut anywhere in last_work's calls
# (ring_crash.sh, with four threads, keeps all of them).
last=$(report_calls "$WORK/nine.report" last_work)
[ "$last" -ge 1 ] && [ "$last" -le $LAST ] || fail "nine: $last calls of last_work kept"
[ "$(report_calls "$WORK/nine.report" busy_work)" -gt 0 ] || fail "nine: no call of busy_work kept"

record crowd --ring 256K --no-libcall "$WORK/ring_crash" $EARLY $LAST 20
[ "$RC" = 139 ] || fail "crowd: exit $RC: $(head -c 300 "$WORK/crowd.err")"
check_readable crowd
grep -q '^ *[1-9][0-9]* threads found no slot of their own' "$WORK/crowd.info" ||
	fail "crowd: info does not count the threads without a window: $(grep -A2 '^ring' "$WORK/crowd.info")"
ct report "$WORK/crowd.trace" >"$WORK/crowd.report"
last=$(report_calls "$WORK/crowd.report" last_work)
[ "$last" -ge 1 ] && [ "$last" -le $LAST ] || fail "crowd: $last calls of last_work kept"

# Twice the free space (within the largest ring): refused before the program runs.
free_kib=$(df -k --output=avail "$WORK" | tail -n 1 | tr -d ' ')
if [ $((free_kib * 2)) -le $((1 << 30)) ]; then
	RC=0
	"$CALLTRACE" record --ring $((free_kib * 2))K -o "$WORK/big.trace" "$WORK/ring_crash" 10 10 \
		>"$WORK/big.out" 2>"$WORK/big.err" || RC=$?
	[ "$RC" = 2 ] && [ "$(wc -l <"$WORK/big.err")" = 1 ] &&
		grep -q "a ring: the ring is larger than the free space of the trace's filesystem$" "$WORK/big.err" ||
		fail "a ring past the free space: exit $RC, $(head -c 300 "$WORK/big.err")"
	[ ! -e "$WORK/big.trace" ] || fail "a ring past the free space left a trace"
	[ ! -s "$WORK/big.out" ] || fail "a ring past the free space ran the program"
fi
pass
