#!/usr/bin/env bash
# patch_attach_crash.sh - a process that `calltrace attach` came into with
# the in-process engine crashes while recorded (crash_on_signal.c: SIGUSR1,
# sent once the attach says it patched, makes it crash): the tool writes
# the crash record the runtime does not (it installs no crash handler in a
# running process).  A write through a NULL pointer: `calltrace crash`
# names the signal, the fault address 0 and write_through_null as the
# place, with the call open at the crash.  An endless recursion under a
# small `ulimit -s`: it says "stack overflow", names recurse_forever and
# shows the recursion as one line with its count.  The attach says the
# crash on stderr as record does, then where to see it again.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra -Wno-infinite-recursion)
setup
# A target left running by a failure goes too.
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
build_c crash_on_signal "$PROGRAMS/dynamic/crash_on_signal.c"
# The overflow's stack is 1 MiB: a quick crash.
printf '#!/bin/sh\nulimit -s 1024\nexec "%s" "$@"\n' "$WORK/crash_on_signal" >"$WORK/small_stack"
chmod +x "$WORK/small_stack"

patched() { grep -q "functions patched" "$1"; }
attach_ended() { ! kill -0 "$1" 2>/dev/null; }

# crash_case MODE PROG: attaches to PROG, makes it crash in MODE, and
# checks what the attach says; the report in $WORK/MODE.crash.
crash_case() {
	local mode=$1 prog=$2 job rc=0 i
	start_target "$mode" "$prog" 1 "$mode"
	"$CALLTRACE" attach -p "$TARGET_PID" -v -o "$WORK/$mode.trace" >/dev/null 2>"$WORK/$mode.attach.err" &
	job=$!
	for ((i = 0; i < 600; i++)); do
		patched "$WORK/$mode.attach.err" || attach_ended "$job" && break
		sleep 0.05
	done
	patched "$WORK/$mode.attach.err" || fail "$mode: the attach did not patch: $(head -c 300 "$WORK/$mode.attach.err")"
	grep -q "^calltrace: engine: in-process engine" "$WORK/$mode.attach.err" ||
		fail "$mode: the attach did not use the in-process engine: $(head -c 300 "$WORK/$mode.attach.err")"
	kill -USR1 "$TARGET_PID"
	wait "$job" || rc=$?
	wait "$TARGET_JOB" || true
	[ "$(cat "$WORK/$mode.rc")" = 139 ] || fail "$mode: the program exited $(cat "$WORK/$mode.rc"), not 139"
	[ "$rc" != 0 ] || fail "$mode: the attach exited 0 though the program crashed"
	grep -q "killed by signal 11" "$WORK/$mode.attach.err" ||
		fail "$mode: the attach did not say the process was killed: $(head -c 300 "$WORK/$mode.attach.err")"
	grep -q "^calltrace: pid $TARGET_PID tid $TARGET_PID crash_on_signal crashed: signal 11 (Segmentation fault)" \
		"$WORK/$mode.attach.err" || fail "$mode: the attach did not say the crash: $(head -c 400 "$WORK/$mode.attach.err")"
	grep -qx "calltrace: see: calltrace crash $WORK/$mode.trace" "$WORK/$mode.attach.err" ||
		fail "$mode: the attach did not say where to see the crash: $(tail -c 300 "$WORK/$mode.attach.err")"
	TARGET_PID=
	ct crash -o "$WORK/$mode.crash" "$WORK/$mode.trace"
	grep -q "no crash recorded" "$WORK/$mode.crash" && fail "$mode: calltrace crash says no crash recorded"
	true
}

crash_case null "$WORK/crash_on_signal"
grep -Eq "crashed: signal 11 \(Segmentation fault\), fault address 0$" "$WORK/null.crash" ||
	fail "null: the signal and fault address are not said: $(head -1 "$WORK/null.crash")"
grep -Eq "^  in write_through_null at crash_on_signal\.c:[0-9]+$" "$WORK/null.crash" ||
	fail "null: the crash is not placed in write_through_null: $(sed -n 2p "$WORK/null.crash")"
grep -Eq "^  #0 +write_through_null at crash_on_signal\.c:[0-9]+" "$WORK/null.crash" ||
	fail "null: write_through_null is not the innermost open call: $(grep -m1 '^  #' "$WORK/null.crash")"

crash_case overflow "$WORK/small_stack"
grep -Eq "crashed: signal 11 \(Segmentation fault\): stack overflow, fault address 0x[0-9a-f]+ \(below the thread's stack\)$" \
	"$WORK/overflow.crash" || fail "overflow: not reported as a stack overflow: $(head -1 "$WORK/overflow.crash")"
grep -Eq "^  in recurse_forever at crash_on_signal\.c:[0-9]+( |$)" "$WORK/overflow.crash" ||
	fail "overflow: the crash is not placed in recurse_forever: $(sed -n 2p "$WORK/overflow.crash")"
ct report -o "$WORK/overflow.report" "$WORK/overflow.trace"
calls=$(report_calls "$WORK/overflow.report" recurse_forever)
[ "$calls" -gt 1000 ] || fail "overflow: only $calls calls of recurse_forever"
grep -Eq "^  #0   recurse_forever at crash_on_signal\.c:[0-9]+  \(×$calls frames, calls [0-9]+ to [0-9]+\)$" \
	"$WORK/overflow.crash" ||
	fail "overflow: the recursion is not one line of $calls frames: $(grep -m1 '^  #' "$WORK/overflow.crash")"

pass "an attached process's crash is recorded: a NULL write in write_through_null, a stack overflow of $calls calls of recurse_forever"
