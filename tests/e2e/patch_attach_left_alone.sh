#!/usr/bin/env bash
# patch_attach_left_alone.sh - an attach that must leave a function alone
# (a thread blocked inside its entry bytes: tests/programs/dynamic/
# parked_entry.c) says so without -v, in one line: that function's calls
# are not recorded, and nothing else would tell.  The other (tick) is
# recorded; the program runs on and ends as it would.  x86-64 only (the
# parked entry is assembly).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
[ "$(uname -m)" = x86_64 ] || skip "the parked entry is x86-64 assembly"
gcc -O1 -g -o "$WORK/parked_entry" "$PROGRAMS/dynamic/parked_entry.c" -pthread ||
	fail "cannot compile parked_entry"
start_target parked "$WORK/parked_entry" 1
RC=0
timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 300ms -o "$WORK/p.trace" \
	>/dev/null 2>"$WORK/p.err" || RC=$?
finish_target parked
[ "$RC" = 0 ] || fail "attach exited $RC: $(head -c 400 "$WORK/p.err")"
grep -qx "calltrace: in-process engine: 1 function left alone, not recorded: a thread stood in its entry, or a call would return there (-v says more)" \
	"$WORK/p.err" || fail "no line on the function left alone: $(tr '\n' '|' <"$WORK/p.err")"
[ "$TARGET_RC" = 3 ] && grep -qx ticked "$WORK/parked.out" ||
	fail "the program ended with $TARGET_RC, printing $(cat "$WORK/parked.out")"
ct report "$WORK/p.trace" >"$WORK/p.report"
grep -q ' tick$' "$WORK/p.report" || fail "tick is not recorded: $(head -c 400 "$WORK/p.report")"
pass
