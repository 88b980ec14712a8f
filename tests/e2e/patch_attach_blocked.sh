#!/usr/bin/env bash
# patch_attach_blocked.sh - an attach to a process whose worker thread
# blocks every signal, the worker making its first calls of two functions
# while the attach records: the process lives on (an entry marked for a
# first-call trap would have killed it: the kernel kills a thread whose
# trap is blocked), every one of those calls is in the trace (late_one and
# late_two 1000 times each, late_two inside late_one), and the process ends
# with its own output and status 3.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -Wall -Wextra)
setup
# As a user attaches: library calls recorded too.
unset CALLTRACE_LIBCALL
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; if [ -n "${ATTACH_PID:-}" ]; then kill -KILL "$ATTACH_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"

build_c blocked "$PROGRAMS/dynamic/blocked_worker.c" -O2 -pthread
touch "$WORK/plain.go"
RC=0
"$WORK/blocked" "$WORK/plain.pid" "$WORK/plain.go" 1 "$WORK/plain.go" "$WORK/plain.done" >"$WORK/plain.out" 2>&1 || RC=$?
[ "$RC" = 3 ] || fail "blocked_worker untraced exited $RC, not 3"

start_target blocked "$WORK/blocked" 1 "$WORK/go" "$WORK/done"
"$CALLTRACE" attach -p "$TARGET_PID" --duration 600s -v -o "$WORK/blocked.trace" >/dev/null 2>"$WORK/attach.err" &
ATTACH_PID=$!
# Recording: the attach said what it patched.
for ((i = 0; i < 1200; i++)); do
	grep -q "functions patched at the attach" "$WORK/attach.err" && break
	kill -0 "$ATTACH_PID" 2>/dev/null || fail "attach ended early: $(tail -n 3 "$WORK/attach.err")"
	sleep 0.05
done
grep -q "functions patched at the attach" "$WORK/attach.err" || fail "attach did not start: $(tail -n 3 "$WORK/attach.err")"
touch "$WORK/go"
for ((i = 0; i < 1200; i++)); do
	[ -s "$WORK/done" ] && break
	kill -0 "$TARGET_PID" 2>/dev/null || break
	sleep 0.05
done
kill -0 "$TARGET_PID" 2>/dev/null || fail "the process died at its first calls while attached: $(cat "$WORK/blocked.rc" 2>/dev/null)"
[ -s "$WORK/done" ] || fail "the worker did not make its late calls"
kill -INT "$ATTACH_PID"
RC=0
wait "$ATTACH_PID" || RC=$?
ATTACH_PID=
[ "$RC" = 0 ] || fail "attach exited $RC: $(tail -n 3 "$WORK/attach.err")"
finish_target blocked
[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/blocked.out" "$WORK/plain.out" ||
	fail "blocked_worker exited $TARGET_RC after the attach: $(head -c 200 "$WORK/blocked.out")"

to_json blocked
ct report "$WORK/blocked.trace" >"$WORK/report.txt"
python3 - "$WORK/blocked.json" "$WORK/report.txt" <<'PY' 2>"$WORK/check.err" ||
	fail "not 1000 late_one calls each with late_two inside: $(tail -n 1 "$WORK/check.err")"
import json, sys
doc = json.load(open(sys.argv[1]))
pairs = 0
def walk(node):
    global pairs
    kids = node.get("children", [])
    if node.get("name") == "late_one":
        assert [k["name"] for k in kids] == ["late_two"], kids
        pairs += 1
    for k in kids:
        walk(k)
for p in doc["processes"]:
    for t in p["threads"]:
        for c in t["calls"]:
            walk(c)
assert pairs == 1000, pairs
report = open(sys.argv[2]).read().split("\n")
for f in ("late_one", "late_two"):
    rows = [l.split() for l in report if l.split() and l.split()[-1] == f]
    assert len(rows) == 1 and rows[0][4] == "1000", (f, rows)
PY
pass
