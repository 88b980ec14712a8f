#!/usr/bin/env bash
# attach_stopped.sh - `calltrace attach` to a process stopped by job
# control (SIGSTOP, Ctrl-Z) leaves it stopped and harms nothing:
#   - one stopped right after its exec, its libraries not loaded yet (the
#     ptrace engine is the one that fits): the attach records for its
#     duration and detaches (it used to wait forever: the engine's call
#     into the process took it out of its stop, and the stop's PTRACE_LISTEN
#     then failed);
#   - one stopped while it runs: the in-process engine, which must run a
#     call in it, says so in one line and exits 1; --engine ptrace attaches
#     and detaches.
# Each time the process is still stopped afterwards, and once continued it
# ends with its own output and status 3 (tick_tock.c).
source "$(dirname "$0")/lib.sh"
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
build_c tick "$PROGRAMS/dynamic/tick_tock.c" -O0
build_c stop_at_exec "$PROGRAMS/dynamic/stop_at_exec.c" -O1
touch "$WORK/expect.stop"
RC=0
"$WORK/tick" "$WORK/expect.pid" "$WORK/expect.stop" 1 >"$WORK/expect.out" 2>&1 || RC=$?
[ "$RC" = 3 ] || fail "untraced tick_tock exited $RC, not 3"

state_of() { sed -n 's/^State:[[:space:]]*\([A-Za-z]\).*/\1/p' "/proc/$1/status" 2>/dev/null; }
still_stopped() {
	[ "$(state_of "$TARGET_PID")" = T ] || fail "$1: process $TARGET_PID is $(state_of "$TARGET_PID"), not stopped"
}
# attach_to NAME [OPTIONS...]: attaches for 300 ms; its status in $RC.
attach_to() {
	local name=$1
	shift
	RC=0
	timeout -s KILL 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 300ms -o "$WORK/$name.trace" \
		"$@" >/dev/null 2>"$WORK/$name.err" || RC=$?
}
# ends_well NAME: continued, the target ends as untraced.
ends_well() {
	kill -CONT "$TARGET_PID"
	finish_target "$1"
	[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/$1.out" "$WORK/expect.out" ||
		fail "$1: ended with $TARGET_RC: $(tr '\n' ' ' <"$WORK/$1.out" | head -c 200)"
}

# Stopped at its exec.
rm -f "$WORK/exec.pid" "$WORK/exec.stop"
"$WORK/stop_at_exec" "$WORK/exec.pid" "$WORK/tick" "$WORK/exec.tick.pid" "$WORK/exec.stop" 1 \
	>"$WORK/exec.out" 2>&1 &
TARGET_JOB=$!
for ((i = 0; i < 1200; i++)); do
	[ -s "$WORK/exec.pid" ] && break
	sleep 0.05
done
TARGET_PID=$(cat "$WORK/exec.pid" 2>/dev/null) || fail "stop_at_exec wrote no pid"
RC=0
attach_to exec
[ "$RC" = 0 ] || fail "attach to a process stopped at its exec exited $RC: $(tail -n 3 "$WORK/exec.err" | head -c 400)"
grep -q "^calltrace: detached from process $TARGET_PID" "$WORK/exec.err" ||
	fail "no detach said: $(tail -n 3 "$WORK/exec.err" | head -c 300)"
ct info "$WORK/exec.trace" >/dev/null
still_stopped "at its exec"
kill -CONT "$TARGET_PID"
for ((i = 0; i < 1200; i++)); do
	[ -s "$WORK/exec.tick.pid" ] && break
	sleep 0.05
done
touch "$WORK/exec.stop"
RC=0
wait "$TARGET_JOB" || RC=$?
[ "$RC" = 3 ] && cmp -s "$WORK/exec.out" "$WORK/expect.out" ||
	fail "the process stopped at its exec ended with $RC: $(tr '\n' ' ' <"$WORK/exec.out" | head -c 200)"

# Stopped while it runs.
start_target run "$WORK/tick" 1
kill -STOP "$TARGET_PID"
for ((i = 0; i < 200; i++)); do
	[ "$(state_of "$TARGET_PID")" = T ] && break
	sleep 0.05
done
attach_to inprocess
[ "$RC" = 1 ] || fail "in-process attach to a stopped process exited $RC, not 1"
[ "$(wc -l <"$WORK/inprocess.err")" -le 2 ] &&
	grep -q "^calltrace: process $TARGET_PID is stopped (SIGSTOP, Ctrl-Z): continue it first" "$WORK/inprocess.err" ||
	fail "in-process attach to a stopped process said: $(head -c 400 "$WORK/inprocess.err")"
still_stopped "after the in-process engine's refusal"
attach_to ptrace --engine ptrace
[ "$RC" = 0 ] || fail "--engine ptrace attach to a stopped process exited $RC: $(tail -n 3 "$WORK/ptrace.err" | head -c 400)"
still_stopped "after the ptrace engine's detach"
ends_well run
pass
