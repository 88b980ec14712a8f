#!/usr/bin/env bash
# ring_kill9.sh - record --ring: kill -9 while four threads go round the
# ring (many windows overwritten already) leaves a readable trace within
# the ring's size: no problem found, each thread's recent calls there, the
# thread that called rarely all of its calls.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c ring_crash "$PROGRAMS/ring/ring_crash.c"

RING=262144 SLACK=65536
overwritten() { # the header's count of windows overwritten (trace_format.h)
	python3 -c 'import struct, sys
d = open(sys.argv[1], "rb").read(128)
print(struct.unpack_from("<Q", d, 88)[0] if len(d) == 128 else 0)' "$WORK/k.trace"
}

"$CALLTRACE" record --ring 256K --no-libcall -o "$WORK/k.trace" "$WORK/ring_crash" 1000000000000 0 4 \
	>"$WORK/k.out" 2>"$WORK/k.err" &
ct_pid=$!
cleanup() { # a failure kills the program too
	trap - ERR
	local left
	left=$(pgrep -P "$ct_pid" || true)
	[ -z "$left" ] || kill -KILL $left 2>/dev/null || true
	wait || true
	rm -rf "$WORK"
}
trap cleanup EXIT
wrapped() {
	kill -0 "$ct_pid" 2>/dev/null || fail "record ended: $(head -c 300 "$WORK/k.err")"
	[ -s "$WORK/k.trace" ] && [ "$(overwritten)" -ge 200 ]
}
wait_for "the ring overwritten 200 windows" wrapped
prog=$(pgrep -P "$ct_pid")
[ -n "$prog" ] || fail "no program under calltrace record"
kill -KILL "$prog"
rc=0
wait "$ct_pid" || rc=$?
[ "$rc" = 137 ] || fail "calltrace record exited $rc after the program's SIGKILL, not 137"

size=$(stat -c %s "$WORK/k.trace")
[ "$size" -le $((RING + SLACK)) ] || fail "the trace has $size bytes, ring $RING"
ct info "$WORK/k.trace" >"$WORK/k.info"
grep -q '^problems: *0$' "$WORK/k.info" ||
	fail "the reader found problems: $(grep -A3 '^problems' "$WORK/k.info")"
ct report "$WORK/k.trace" >"$WORK/k.report"
[ "$(report_calls "$WORK/k.report" rare_work)" = 25 ] ||
	fail "$(report_calls "$WORK/k.report" rare_work) calls of rare_work kept, not 25"
for f in busy_work early_work; do
	[ "$(report_calls "$WORK/k.report" $f)" -gt 0 ] || fail "no call of $f kept"
done
for cmd in replay json chrome; do
	ct "$cmd" -o "$WORK/k.$cmd" "$WORK/k.trace" >/dev/null 2>&1 ||
		ct "$cmd" "$WORK/k.trace" >"$WORK/k.$cmd"
	[ -s "$WORK/k.$cmd" ] || fail "calltrace $cmd printed nothing"
done
pass
