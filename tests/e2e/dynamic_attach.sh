#!/usr/bin/env bash
# dynamic_attach.sh - `calltrace attach` to a running two-thread program for
# about a second (saying so as it starts: process, program, engine, how it
# stops): the trace holds both threads' loop calls with the right
# nesting, and after the detach the program runs on to its normal end (same
# output, exit code 5): no breakpoint and no swapped return address is left.
# A process that exits while traced ends the attach (exit 0, said so); one
# that is killed while traced makes it fail.  Then the errors: a dead PID, a
# process that is already traced, a kernel thread, a zombie, a process we may not
# trace, a duration that is not a positive finite one; a refused attach
# leaves no trace file.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
build_c loop "$PROGRAMS/dynamic/attach_loop.c"
rounds=150 # 150 x 20 ms: 3 s
run_plain loop "$WORK/loop" "$WORK/plain.pid" "$rounds"
[ "$PLAIN_RC" = 5 ] || fail "untraced run exited $PLAIN_RC, not 5"

"$WORK/loop" "$WORK/loop.pid" "$rounds" >"$WORK/loop.out" 2>"$WORK/loop.err" &
loop_job=$!
for ((i = 0; i < 1200; i++)); do
	[ -s "$WORK/loop.pid" ] && break
	sleep 0.05
done
[ -s "$WORK/loop.pid" ] || fail "the loop program did not start"
pid=$(cat "$WORK/loop.pid")
RC=0
"$CALLTRACE" attach -p "$pid" --duration 1s -o "$WORK/loop.trace" >"$WORK/attach.out" 2>"$WORK/attach.err" || RC=$?
[ "$RC" = 0 ] || fail "attach exited $RC: $(head -c 300 "$WORK/attach.err")"
grep -q "^calltrace: .*detached" "$WORK/attach.err" || fail "attach did not say it detached: $(head -c 300 "$WORK/attach.err")"
grep -qxF "calltrace: attaching to process $pid ($WORK/loop) with the in-process engine: recording for 1s, Ctrl-C stops sooner" "$WORK/attach.err" ||
	fail "attach did not say what it attached to: $(head -c 300 "$WORK/attach.err")"
kill -0 "$pid" 2>/dev/null || fail "the program is gone right after the detach"
LOOP_RC=0
wait "$loop_job" || LOOP_RC=$?
[ "$LOOP_RC" = 5 ] || fail "after the detach the program exited $LOOP_RC, not 5: $(head -c 200 "$WORK/loop.err")"
cmp -s "$WORK/loop.out" "$WORK/loop.plain.out" || fail "the program's output changed: $(head -c 200 "$WORK/loop.out")"
[ -s "$WORK/loop.err" ] && fail "the program wrote to stderr: $(head -c 200 "$WORK/loop.err")"

to_json loop
python3 - "$WORK/loop.json" <<'PY' || fail "$(tail -n 1 "$WORK/check.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
trees = doc["call_trees"]
def walk(calls, parent, out):
    for c in calls:
        out.append((parent, c["function"], [k["function"] for k in c.get("children", [])]))
        walk(c.get("children", []), c["function"], out)
threads_with_steps = 0
for key, tree in trees.items():
    calls = []
    walk(tree.get("calls", []), None, calls)
    steps = [c for c in calls if c[1] == "loop_step"]
    for parent, name, kids in steps:
        if kids != ["loop_leaf"]:
            sys.exit(f"thread {key}: loop_step has children {kids}")
    waits = [c for c in calls if c[1] == "loop_wait" and c[2]]
    for parent, name, kids in waits:
        if kids != ["loop_nap"]:
            sys.exit(f"thread {key}: loop_wait has children {kids}")
    if len(steps) >= 20:
        threads_with_steps += 1
if threads_with_steps != 2:
    sys.exit(f"{threads_with_steps} threads with 20 or more loop_step calls in a second, not 2")
PY

# A dead PID, and a process that another tracer holds.
RC=0
"$CALLTRACE" attach -p "$pid" -o "$WORK/dead.trace" >/dev/null 2>"$WORK/dead.err" || RC=$?
[ "$RC" != 0 ] && [ "$(wc -l <"$WORK/dead.err")" = 1 ] && grep -q '^calltrace: ' "$WORK/dead.err" ||
	fail "attach to a dead PID: exit $RC, stderr $(head -c 200 "$WORK/dead.err")"
[ -e "$WORK/dead.trace" ] && fail "attach to a dead PID left a trace file"

# start_loop NAME ROUNDS: the loop program in the background ($LOOP_JOB, $LOOP_PID).
start_loop() {
	local i
	"$WORK/loop" "$WORK/$1.pid" "$2" >"$WORK/$1.out" 2>"$WORK/$1.err" &
	LOOP_JOB=$!
	for ((i = 0; i < 1200; i++)); do
		[ -s "$WORK/$1.pid" ] && break
		sleep 0.05
	done
	[ -s "$WORK/$1.pid" ] || fail "the loop program did not start"
	LOOP_PID=$(cat "$WORK/$1.pid")
}

start_loop exits 100 # 2 s
RC=0
timeout 60 "$CALLTRACE" attach -p "$LOOP_PID" --duration 30s -o "$WORK/exits.trace" >/dev/null 2>"$WORK/exits.attach.err" || RC=$?
wait "$LOOP_JOB" || true
[ "$RC" = 0 ] && grep -q "^calltrace: process $LOOP_PID exited with status 5 while traced" "$WORK/exits.attach.err" ||
	fail "attach to a process that exits: exit $RC, stderr $(head -c 300 "$WORK/exits.attach.err")"

start_loop killed 500
RC=0
timeout 60 "$CALLTRACE" attach -v -p "$LOOP_PID" --duration 30s -o "$WORK/killed.trace" >/dev/null 2>"$WORK/killed.attach.err" &
attach_job=$!
# Killed once the attach has patched it (-v says so), however long that takes.
for ((i = 0; i < 1200; i++)); do
	grep -qs 'functions patched' "$WORK/killed.attach.err" && break
	kill -0 "$attach_job" 2>/dev/null || break
	sleep 0.05
done
{
	kill -KILL "$LOOP_PID"
	wait "$attach_job" || RC=$?
	wait "$LOOP_JOB" || true
} 2>/dev/null
[ "$RC" != 0 ] && [ "$RC" != 124 ] && grep -q "^calltrace: process $LOOP_PID was killed by signal 9" "$WORK/killed.attach.err" ||
	fail "attach to a process killed meanwhile: exit $RC, stderr $(head -c 300 "$WORK/killed.attach.err")"

# --duration: more than nothing and finite (a bare number is seconds).
sleep 30 &
sleeper=$!
wait_exec "$sleeper" sleep
for duration in 0 0s nan inf -1 abc 1e400 1x; do
	RC=0
	timeout 10 "$CALLTRACE" attach -p "$sleeper" --duration "$duration" -o "$WORK/dur.trace" >/dev/null 2>"$WORK/dur.err" || RC=$?
	[ "$RC" != 0 ] && [ "$RC" != 124 ] && [ "$(wc -l <"$WORK/dur.err")" = 1 ] &&
		grep -q "^calltrace: bad duration '$duration'" "$WORK/dur.err" ||
		fail "--duration $duration: exit $RC, stderr $(head -c 200 "$WORK/dur.err")"
	[ -e "$WORK/dur.trace" ] && fail "--duration $duration left a trace file"
done
RC=0
timeout 20 "$CALLTRACE" attach -p "$sleeper" --duration 0.3 -o "$WORK/bare.trace" >/dev/null 2>"$WORK/bare.err" || RC=$?
[ "$RC" = 0 ] || fail "--duration 0.3 (seconds): exit $RC, stderr $(head -c 200 "$WORK/bare.err")"

# A kernel thread (when this namespace shows one).
kthread=
for stat in /proc/[0-9]*/stat; do
	flags=$(sed 's/.*) //' "$stat" 2>/dev/null | cut -d' ' -f7) || continue
	[ -n "$flags" ] && (((flags & 0x00200000) != 0)) && {
		kthread=$(basename "$(dirname "$stat")")
		break
	}
done
if [ -n "$kthread" ]; then
	RC=0
	"$CALLTRACE" attach -p "$kthread" -o "$WORK/kthread.trace" >/dev/null 2>"$WORK/kthread.err" || RC=$?
	[ "$RC" != 0 ] && [ "$(wc -l <"$WORK/kthread.err")" = 1 ] && grep -q '^calltrace: .*kernel thread' "$WORK/kthread.err" ||
		fail "attach to kernel thread $kthread: exit $RC, stderr $(head -c 200 "$WORK/kthread.err")"
	[ -e "$WORK/kthread.trace" ] && fail "attach to a kernel thread left a trace file"
fi

# A zombie: a child its parent never reaps (python does not reap by itself,
# where a shell may before it execs).  Its pid is written only once it has
# exited; the parent then sleeps, so the child stays a zombie.
python3 -c '
import os, sys, time
pid = os.fork()
if pid == 0:
    os._exit(0)
while open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0] != "Z":
    time.sleep(0.01)
open(sys.argv[1], "w").write("%d\n" % pid)
time.sleep(60)
' "$WORK/zombie.pid" &
zombie_parent=$!
until [ -s "$WORK/zombie.pid" ]; do
	kill -0 "$zombie_parent" 2>/dev/null || fail "the zombie's parent ended early"
	sleep 0.05
done
zombie=$(cat "$WORK/zombie.pid")
[ "$(sed 's/.*) //' "/proc/$zombie/stat" | cut -c1)" = Z ] || fail "process $zombie is not a zombie"
RC=0
"$CALLTRACE" attach -p "$zombie" -o "$WORK/zombie.trace" >/dev/null 2>"$WORK/zombie.err" || RC=$?
kill "$zombie_parent" 2>/dev/null || true
wait "$zombie_parent" 2>/dev/null || true
[ "$RC" = 1 ] && [ "$(wc -l <"$WORK/zombie.err")" = 1 ] && grep -q "^calltrace: process $zombie is a zombie" "$WORK/zombie.err" ||
	fail "attach to a zombie: exit $RC, stderr $(head -c 200 "$WORK/zombie.err")"
[ -e "$WORK/zombie.trace" ] && fail "attach to a zombie left a trace file"

# A process we may not trace: root's sleeper, seen by an unprivileged user.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	chmod 711 "$WORK"
	mkdir -m 777 "$WORK/open"
	RC=0
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$CALLTRACE" attach -p "$sleeper" -o "$WORK/open/eperm.trace" >/dev/null 2>"$WORK/eperm.err" || RC=$?
	[ "$RC" != 0 ] && [ "$(wc -l <"$WORK/eperm.err")" = 1 ] && grep -q '^calltrace: not allowed' "$WORK/eperm.err" ||
		fail "attach without permission: exit $RC, stderr $(head -c 200 "$WORK/eperm.err")"
	[ -e "$WORK/open/eperm.trace" ] && fail "a refused attach left a trace file"
fi
kill "$sleeper" 2>/dev/null || true
wait "$sleeper" 2>/dev/null || true

"$CALLTRACE" record -q --dynamic -o "$WORK/held.trace" "$WORK/loop" "$WORK/held.pid" 100 >/dev/null 2>&1 &
held_job=$!
for ((i = 0; i < 1200; i++)); do
	[ -s "$WORK/held.pid" ] && break
	sleep 0.05
done
[ -s "$WORK/held.pid" ] || fail "the traced loop program did not start"
RC=0
"$CALLTRACE" attach -p "$(cat "$WORK/held.pid")" -o "$WORK/held2.trace" >/dev/null 2>"$WORK/held.err" || RC=$?
kill "$held_job" 2>/dev/null || true
wait "$held_job" 2>/dev/null || true
[ "$RC" != 0 ] && [ "$(wc -l <"$WORK/held.err")" = 1 ] && grep -q '^calltrace: .*already traced' "$WORK/held.err" ||
	fail "attach to a traced process: exit $RC, stderr $(head -c 200 "$WORK/held.err")"
pass
