#!/usr/bin/env bash
# core_ctl.sh - `calltrace ctl -p PID start|stop|toggle` switches recording
# in a program run with CALLTRACE_SIGNAL and CALLTRACE_START=off: exactly the
# calls made while it is on are recorded; start when on and stop when off
# change nothing; a process without CALLTRACE_SIGNAL, one that does not
# catch the signal, one that is gone, and bad arguments get one line and a
# non-zero exit.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c target "$PROGRAMS/ctl_target.c"

coproc TARGET {
	CALLTRACE_SIGNAL=SIGUSR2 CALLTRACE_START=off CALLTRACE_OUTPUT=$WORK/ctl.trace \
		LD_PRELOAD=$RUNTIME "$WORK/target" 2>"$WORK/target.err"
}
in=${TARGET[1]} out=${TARGET[0]} target=$TARGET_PID # bash unsets them when it ends
read -r pid <&"$out"
step() { # N: the target calls work() N times
	echo "$1" >&"$in"
	local line
	read -r line <&"$out" || fail "the target ended early"
	[ "$line" = "done $1" ] || fail "the target said '$line'"
}
ctl() {
	"$CALLTRACE" ctl -p "$pid" "$1" || fail "ctl $1: exit $?"
}
step 2          # off
ctl start
step 3          # on
ctl stop
step 4          # off
ctl toggle
step 5          # on
ctl start
step 6          # still on
ctl stop
ctl stop
step 7          # still off
ctl toggle
ctl toggle
step 8          # off
exec {in}>&-
wait "$target" || fail "the target exited $?"

to_json ctl
expect_trees ctl <<'TREES'
== process 1 main
handle_line
  work [x3]
handle_line
  work [x5]
handle_line
  work [x6]
TREES

# Refusals.
expect_refusal() { # PATTERN ARG...: calltrace ctl ARG... fails with one line matching
	local pattern=$1 rc=0
	shift
	"$CALLTRACE" ctl "$@" >/dev/null 2>"$WORK/refusal.err" || rc=$?
	[ "$rc" != 0 ] || fail "ctl $*: exit 0"
	[ "$(wc -l <"$WORK/refusal.err")" = 1 ] && grep -q "$pattern" "$WORK/refusal.err" ||
		fail "ctl $*: said $(cat "$WORK/refusal.err")"
}
sleep 30 &
plain=$!
CALLTRACE_SIGNAL=USR2 sleep 30 &
uncaught=$!
wait_exec "$plain" sleep
wait_exec "$uncaught" sleep
expect_refusal "process $plain was started without CALLTRACE_SIGNAL" -p "$plain" start
expect_refusal "process $uncaught does not catch SIGUSR2" -p "$uncaught" stop
kill "$plain" "$uncaught"
wait "$plain" "$uncaught" 2>/dev/null || true
expect_refusal "no process $pid" -p "$pid" start
expect_refusal "unknown request 'pause'" -p 1 pause
expect_refusal "want -p PID" start
expect_refusal "bad --pid 'x'" -p x start
pass
