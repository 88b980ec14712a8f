#!/usr/bin/env bash
# ring_attach.sh - `calltrace attach --ring`: attached to a busy 4-thread
# program (tick_tock.c) until the ring has overwritten 100 windows, then
# stopped with Ctrl-C: the trace stays within the ring's size, reads back
# without problem, and every thread's kept ticks each hold their one tock.
# --ring with --syscalls, or a size that is none, is refused in one line.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
build_c tick "$PROGRAMS/dynamic/tick_tock.c"

RING=131072 SLACK=65536
overwritten() {
	python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(128)
print(struct.unpack_from("<Q", d, 88)[0] if len(d) == 128 else 0)' "$WORK/a.trace"
}

start_target t "$WORK/tick" 4
"$CALLTRACE" attach -p "$TARGET_PID" --ring 128K -o "$WORK/a.trace" >"$WORK/a.out" 2>"$WORK/a.err" &
attach_job=$!
ATTACH_ERR=$WORK/a.err
wrapped() {
	kill -0 "$attach_job" 2>/dev/null || fail "attach ended: $(head -c 300 "$WORK/a.err")"
	[ -s "$WORK/a.trace" ] && [ "$(overwritten)" -ge 100 ]
}
wait_for "the ring overwritten 100 windows" wrapped
kill -INT "$attach_job"
rc=0
wait "$attach_job" || rc=$?
[ "$rc" = 0 ] || fail "attach exited $rc after Ctrl-C: $(head -c 300 "$WORK/a.err")"
finish_target t
[ "$TARGET_RC" = 3 ] || fail "the program exited $TARGET_RC after the detach, not 3"

size=$(stat -c %s "$WORK/a.trace")
[ "$size" -le $((RING + SLACK)) ] || fail "the trace has $size bytes, ring $RING"
ct info "$WORK/a.trace" >"$WORK/a.info"
grep -q '^problems: *0$' "$WORK/a.info" || fail "problems: $(grep -A3 '^problems' "$WORK/a.info")"
grep -q '^ring: *128 KiB in 8 windows of 16 KiB' "$WORK/a.info" || fail "no ring line: $(grep ring "$WORK/a.info")"
[ "$(grep -c '^    thread .*kept' "$WORK/a.info")" = 4 ] || fail "not 4 threads with kept calls"
ct replay "$WORK/a.trace" >"$WORK/a.replay"
# Each finished tick holds exactly one tock (a tick entered before the
# kept calls may have lost its tock's enter too: it is not counted).
python3 - "$WORK/a.replay" <<'PY' || fail "ticks without their tock"
import re, sys
open_ticks, bad, seen = {}, 0, 0
for line in open(sys.argv[1]):
    m = re.search(r'\[\s*(\d+)\] \|( *)(.*)$', line)
    if not m:
        continue
    tid, text = m.group(1), m.group(3)
    if text.startswith('tick() {'):
        open_ticks[tid] = 0
    elif text.startswith('tock();') and tid in open_ticks:
        open_ticks[tid] += 1
    elif text.startswith('} /* tick */') and tid in open_ticks:
        seen += 1
        bad += open_ticks.pop(tid) != 1
sys.exit(0 if seen > 0 and bad == 0 else 1)
PY

rc=0
"$CALLTRACE" attach -p "$$" --ring 1M --syscalls 2>"$WORK/e1.err" || rc=$?
[ "$rc" != 0 ] && [ "$(wc -l <"$WORK/e1.err")" = 1 ] && grep -q -- "--ring" "$WORK/e1.err" ||
	fail "--ring with --syscalls: exit $rc, $(cat "$WORK/e1.err")"
rc=0
"$CALLTRACE" attach -p "$$" --ring 12K 2>"$WORK/e2.err" || rc=$?
[ "$rc" != 0 ] && grep -q "bad --ring '12K'" "$WORK/e2.err" || fail "--ring 12K: exit $rc, $(cat "$WORK/e2.err")"
pass
