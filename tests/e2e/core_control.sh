#!/usr/bin/env bash
# core_control.sh - CALLTRACE_SIGNAL: the named signal switches recording on
# and off (with CALLTRACE_START=off, exactly the calls between the first and
# the second), by name with or without SIG, or by number; a name that is no
# signal is refused with one line and recording goes on as if unset; the
# program's output is unchanged.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c toggle "$PROGRAMS/toggle.c"

work_calls() { # TRACE: calls of work() in TRACE's report (0 if none)
	ct report "$1" >"$WORK/toggle.report"
	grep -q " work\$" "$WORK/toggle.report" || { echo 0; return; }
	report_calls "$WORK/toggle.report" work
}

for name in SIGUSR2 USR2 12; do
	CALLTRACE_SIGNAL=$name CALLTRACE_START=off LD_PRELOAD=$RUNTIME \
		CALLTRACE_OUTPUT=$WORK/t$name.trace "$WORK/toggle" >"$WORK/t$name.out" ||
		fail "CALLTRACE_SIGNAL=$name: exit $?"
	grep -qx 'toggle 12' "$WORK/t$name.out" || fail "$name: printed $(cat "$WORK/t$name.out")"
	[ "$(work_calls "$WORK/t$name.trace")" = 4 ] ||
		fail "CALLTRACE_SIGNAL=$name: work recorded $(work_calls "$WORK/t$name.trace") times, not 4"
done
# Exactly the calls made after the first signal and before the second.
to_json tSIGUSR2
expect_trees tSIGUSR2 <<'TREES'
== process 1 main
repeat
  work [x4]
TREES
# Recording on from the start: the first signal switches it off, the
# second on again: 3 + 5.
CALLTRACE_SIGNAL=SIGUSR2 LD_PRELOAD=$RUNTIME CALLTRACE_OUTPUT=$WORK/on.trace "$WORK/toggle" >/dev/null ||
	fail "recording on: exit $?"
[ "$(work_calls "$WORK/on.trace")" = 8 ] || fail "recording on: work recorded $(work_calls "$WORK/on.trace") times, not 8"

# Not a signal: said once; then SIGUSR2 is the program's (it dies of it).
rc=0
CALLTRACE_SIGNAL=SIGNOPE LD_PRELOAD=$RUNTIME CALLTRACE_OUTPUT=$WORK/bad.trace "$WORK/toggle" \
	>"$WORK/bad.out" 2>"$WORK/bad.err" || rc=$?
[ "$rc" = $((128 + 12)) ] || fail "CALLTRACE_SIGNAL=SIGNOPE: exit $rc, not death by SIGUSR2"
grep -q '^calltrace: CALLTRACE_SIGNAL names no signal' "$WORK/bad.err" ||
	fail "CALLTRACE_SIGNAL=SIGNOPE: no line says so: $(cat "$WORK/bad.err")"
pass
