#!/usr/bin/env bash
# patch_attach_starved.sh - an in-process detach from a process that gets
# almost no CPU: it runs on one CPU beside two busy loops of normal
# priority, and once the attach records, with SCHED_IDLE (so the test makes
# its own busy machine, whatever the machine's load).  A thread resumed
# there may wait a long time before it runs, and a stop takes as long to
# land.
#
# busy_calls (one thread calling small functions without pause, so a stop
# often finds it inside the runtime) is attached to ATTACHES times (default
# 3): every attach and detach must succeed, the trace read back with no
# problem (it may hold no call: the process may barely run), every one of
# its 13 functions patched or said to be left alone where its thread stood,
# and the process end with its own output and status 3.  The detach lets a thread
# inside the runtime run until it leaves, counted in the CPU time it got:
# a budget of wall-clock time ran out here before the thread had run.  The
# calls the detach makes in the process do not count the time they wait
# for a CPU either.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -Wall -Wextra)
setup
busy_loops=()
cleanup() {
	if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi
	for pid in "${busy_loops[@]}"; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
need_cmd taskset
need_cmd chrt

build_c busy "$PROGRAMS/dynamic/busy_calls.c" -O0
touch "$WORK/expect.stop"
RC=0
"$WORK/busy" "$WORK/expect.pid" "$WORK/expect.stop" 1 >"$WORK/expect.out" 2>&1 || RC=$?
[ "$RC" = 3 ] || fail "untraced busy_calls exited $RC, not 3"

cpu=$(taskset -cp $$ | sed 's/.*: *//; s/[,-].*//')
for _ in 1 2; do # bounded: a test killed before its cleanup leaves no loop behind
	taskset -c "$cpu" timeout 600 sh -c 'while :; do :; done' &
	busy_loops+=($!)
done
chrt --idle 0 true 2>/dev/null || skip "SCHED_IDLE is not allowed here"
printf '#!/bin/sh\nexec taskset -c %s "%s" "$@"\n' "$cpu" "$WORK/busy" >"$WORK/pinned_busy"
chmod +x "$WORK/pinned_busy"
start_target starved "$WORK/pinned_busy" 1

for ((i = 1; i <= ${ATTACHES:-3}; i++)); do
	trace="$WORK/starved$i.trace"
	RC=0
	timeout -s INT 180 "$CALLTRACE" attach -p "$TARGET_PID" --duration 1500ms -v -o "$trace" \
		>/dev/null 2>"$trace.err" &
	attach_job=$!
	# Once recording (the attach's start had a third of the CPU), the
	# process is starved for the detach; given its share back after.
	for ((w = 0; w < 600; w++)); do
		grep -q "^calltrace: in-process engine: " "$trace.err" 2>/dev/null && break
		sleep 0.05
	done
	chrt --idle -a -p 0 "$TARGET_PID" || fail "cannot give process $TARGET_PID SCHED_IDLE"
	wait "$attach_job" || RC=$?
	chrt --other -a -p 0 "$TARGET_PID" || true
	[ "$RC" = 0 ] || fail "attach $i to a starved process exited $RC: $(tail -n 3 "$trace.err" | head -c 600)"
	grep -q "^calltrace: engine: in-process engine" "$trace.err" ||
		fail "attach $i did not use the in-process engine: $(head -c 300 "$trace.err")"
	grep -q "^calltrace: detached from process $TARGET_PID" "$trace.err" ||
		fail "attach $i did not say it detached: $(tail -n 3 "$trace.err" | head -c 300)"
	# It may have run no call meanwhile; what it ran is whole.
	"$CALLTRACE" info "$trace" >"$trace.info" 2>"$trace.info.err" ||
		fail "info of attach $i failed: $(head -c 300 "$trace.info.err")"
	grep -q "^problems: *0$" "$trace.info" || fail "attach $i: $(grep -A3 '^problems' "$trace.info")"
	# Every one of busy_calls' 13 functions patched, or left alone where
	# its thread stood (or would return) when the attach stopped it:
	# starved, the thread is often inside one.
	said=$(sed -En 's/^calltrace: in-process engine: ([0-9]+) of ([0-9]+) functions patched; [0-9]+ entries took an earlier attach.s trampoline; ([0-9]+) left alone where a thread stood, ([0-9]+) where a call would return.*/\1 \2 \3 \4/p' "$trace.err")
	read -r patched total stood returns <<<"$said" || true
	[ "${total:-}" = 13 ] && [ $((patched + stood + returns)) = 13 ] ||
		fail "attach $i did not account for busy_calls' 13 functions: $(grep 'functions patched' "$trace.err")"
	grep -q "functions: $patched patched" "$trace.info" ||
		fail "attach $i: info does not say the $patched functions patched: $(grep 'functions:' "$trace.info")"
done
for pid in "${busy_loops[@]}"; do kill "$pid" 2>/dev/null || true; done
finish_target starved
[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/starved.out" "$WORK/expect.out" ||
	fail "busy_calls ended with $TARGET_RC after the attaches: $(tr '\n' ' ' <"$WORK/starved.out" | head -c 200)"
pass "${ATTACHES:-3} attaches to a process given almost no CPU, each detached"
