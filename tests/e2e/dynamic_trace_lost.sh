#!/usr/bin/env bash
# dynamic_trace_lost.sh - the ptrace engine's trace losing its space while
# it records: truncated under `record --engine ptrace` and under `attach
# --engine ptrace`, and (as root) a disk that is full.  calltrace must not
# die of SIGBUS (taking the program with it): it says on stderr what
# happened and that recording stopped, the program runs on untraced to its
# own end (output and status as untraced), and `calltrace info` reads what
# is left.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
build_c tick "$PROGRAMS/dynamic/tick_tock.c"
build_c diskfill "$PROGRAMS/reliability/diskfill.c"
touch "$WORK/expect.stop"
RC=0
"$WORK/tick" "$WORK/expect.pid" "$WORK/expect.stop" 1 >"$WORK/expect.out" 2>&1 || RC=$?
[ "$RC" = 3 ] || fail "untraced tick_tock exited $RC, not 3"
said_stopped() { grep -q "recording stopped, the program goes on" "$1"; }
trace_grew() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt 65536 ]; }

# truncated record|attach: the trace truncated once it grows; the program
# is let finish once calltrace has said so.
truncated() {
	local how=$1 trace=$WORK/$1.trace job rc=0
	rm -f "$WORK/$how.pid" "$WORK/$how.stop"
	if [ "$how" = record ]; then
		"$CALLTRACE" record --engine ptrace -o "$trace" "$WORK/tick" "$WORK/$how.pid" "$WORK/$how.stop" 1 \
			>"$WORK/$how.out" 2>"$WORK/$how.err" &
		job=$!
	else
		start_target "$how" "$WORK/tick" 1
		"$CALLTRACE" attach --engine ptrace -p "$TARGET_PID" -o "$trace" >/dev/null 2>"$WORK/$how.err" &
		job=$!
	fi
	wait_for "$how: the trace growing ($(head -c 200 "$WORK/$how.err" 2>/dev/null || true))" trace_grew "$trace"
	truncate -s 0 "$trace"
	wait_for "$how: a line saying the trace was lost" said_stopped "$WORK/$how.err"
	if [ "$how" = record ]; then
		touch "$WORK/$how.stop"
		wait "$job" || rc=$?
		[ "$rc" = 3 ] || fail "record: the program ended with $rc, not 3, once its trace was truncated: $(head -c 300 "$WORK/$how.err")"
	else
		wait "$job" || rc=$?
		[ "$rc" = 1 ] || fail "attach exited $rc, not 1, once its trace was truncated: $(head -c 300 "$WORK/$how.err")"
		finish_target "$how"
		[ "$TARGET_RC" = 3 ] || fail "attach: the program ended with $TARGET_RC, not 3, once its trace was truncated"
	fi
	cmp -s "$WORK/$how.out" "$WORK/expect.out" || fail "$how: the program's output differs: $(head -c 200 "$WORK/$how.out")"
	grep -q "$trace: the trace file was truncated; recording stopped" "$WORK/$how.err" ||
		fail "$how: no line says the trace was truncated: $(head -c 300 "$WORK/$how.err")"
	"$CALLTRACE" info "$trace" >/dev/null 2>"$WORK/$how.info.err" || [ -s "$WORK/$how.info.err" ] ||
		fail "$how: info failed on what is left without a message"
}
truncated record
truncated attach

# A disk that fills: 40000 calls do not fit on a 256 KiB tmpfs.
if [ "$(id -u)" = 0 ] && mkdir "$WORK/small" && mount -t tmpfs -o size=256k tmpfs "$WORK/small" 2>/dev/null; then
	trap 'umount "$WORK/small" 2>/dev/null || true; rm -rf "$WORK"' EXIT
	run_plain fill "$WORK/diskfill" 40000
	RC=0
	"$CALLTRACE" record --engine ptrace -o "$WORK/small/a.trace" "$WORK/diskfill" 40000 \
		>"$WORK/fill.out" 2>"$WORK/fill.err" || RC=$?
	[ "$RC" = "$PLAIN_RC" ] && cmp -s "$WORK/fill.out" "$WORK/fill.plain.out" ||
		fail "a full disk: the program ended with $RC (untraced $PLAIN_RC), output $(head -c 100 "$WORK/fill.out")"
	grep -q "a.trace: No space left on device; recording stopped, the program goes on" "$WORK/fill.err" ||
		fail "a full disk: no line says so at record time: $(head -c 300 "$WORK/fill.err")"
fi
pass
