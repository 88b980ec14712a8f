#!/usr/bin/env bash
# dynamic_attach.sh - `calltrace attach` to a running two-thread program for
# about a second: the trace holds both threads' loop calls with the right
# nesting, and after the detach the program runs on to its normal end (same
# output, exit code 5): no breakpoint and no swapped return address is left.
# Then the errors: a dead PID, a process that is already traced.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
build_c loop "$PROGRAMS/dynamic/attach_loop.c"
rounds=150 # 150 x 20 ms: 3 s
run_plain loop "$WORK/loop" "$WORK/plain.pid" "$rounds"
[ "$PLAIN_RC" = 5 ] || fail "untraced run exited $PLAIN_RC, not 5"

"$WORK/loop" "$WORK/loop.pid" "$rounds" >"$WORK/loop.out" 2>"$WORK/loop.err" &
loop_job=$!
for ((i = 0; i < 100; i++)); do
	[ -s "$WORK/loop.pid" ] && break
	sleep 0.05
done
[ -s "$WORK/loop.pid" ] || fail "the loop program did not start"
pid=$(cat "$WORK/loop.pid")
RC=0
"$CALLTRACE" attach -p "$pid" --duration 1s -o "$WORK/loop.trace" >"$WORK/attach.out" 2>"$WORK/attach.err" || RC=$?
[ "$RC" = 0 ] || fail "attach exited $RC: $(head -c 300 "$WORK/attach.err")"
grep -q "^calltrace: .*detached" "$WORK/attach.err" || fail "attach did not say it detached: $(head -c 300 "$WORK/attach.err")"
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
"$CALLTRACE" record -q --dynamic -o "$WORK/held.trace" "$WORK/loop" "$WORK/held.pid" 100 >/dev/null 2>&1 &
held_job=$!
for ((i = 0; i < 100; i++)); do
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
