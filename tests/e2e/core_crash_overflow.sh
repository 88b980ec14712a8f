#!/usr/bin/env bash
# core_crash_overflow.sh - a stack overflow (an endless recursion, in the
# main thread and in a second one, under a small `ulimit -s` so that it is
# quick) is reported as one, under every engine: the runtime, the
# in-process engine and the ptrace engine.  `calltrace crash` says "stack
# overflow", names recurse_forever as the place (under the in-process
# engine the fault hits in calltrace's code for the entry of the next call:
# the function is named, not the runtime's), and shows the thousands of
# recursive calls as one line with their count, the exact count of
# recurse_forever's calls, followed by the callers; `info` says it too.
# Two functions that call each other are one line too.
# `record` says it on stderr too.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/reliability/overflow.c
build_c overflow "$src" -Wno-infinite-recursion
gcc -std=gnu11 -g -O0 -Wno-infinite-recursion -o "$WORK/overflow_plain" "$src" -pthread ||
	fail "cannot compile overflow_plain"

# overflow_case ENGINE MODE: records the overflow of MODE (main or thread)
# under ENGINE (hooks, patch or ptrace) and checks the report.
overflow_case() {
	local engine=$1 mode=$2 name=$1_$2 crash calls callers
	crash=$WORK/$name.crash
	(
		ulimit -s 1024
		case $engine in
		hooks) record "$name" "$WORK/overflow" "$mode" ;;
		*) record "$name" --engine "$engine" "$WORK/overflow_plain" "$mode" ;;
		esac
		echo "$RC" >"$WORK/$name.rc"
	)
	[ "$(cat "$WORK/$name.rc")" = 139 ] || fail "$name: record exited $(cat "$WORK/$name.rc"), not 139"
	ct crash -o "$crash" "$WORK/$name.trace"
	grep -Eq "crashed: signal 11 \(Segmentation fault\): stack overflow, fault address 0x[0-9a-f]+ \(below the thread's stack\)$" \
		"$crash" || fail "$name: not reported as a stack overflow: $(head -1 "$crash")"
	grep -Eq "^  in recurse_forever at overflow\.c:[0-9]+( |$)" "$crash" ||
		fail "$name: the crash is not placed in recurse_forever: $(sed -n 2p "$crash")"
	# Every call of recurse_forever was open: one line with their count.
	ct report -o "$WORK/$name.report" "$WORK/$name.trace"
	calls=$(report_calls "$WORK/$name.report" recurse_forever)
	[ "$calls" -gt 1000 ] || fail "$name: only $calls calls of recurse_forever"
	grep -Eq "^  #0   recurse_forever at overflow\.c:[0-9]+  \(×$calls frames, calls [0-9]+ to [0-9]+\)$" \
		"$crash" || fail "$name: the recursion is not one line of $calls frames: $(grep -m1 '^  #' "$crash")"
	callers=main
	[ "$mode" = thread ] && callers=overflow_thread
	grep -Eq "^  #$calls +$callers " "$crash" ||
		fail "$name: frame #$calls is not $callers: $(grep '^  #' "$crash" | sed -n 2p)"
	[ "$(grep -c '^  #' "$crash")" -le 4 ] || fail "$name: $(grep -c '^  #' "$crash") stack lines, not 2 to 4"
	ct info "$WORK/$name.trace" >"$WORK/$name.info"
	grep -Eq "^crash: +pid [0-9]+ tid [0-9]+: signal 11 at 0x[0-9a-f]+: stack overflow$" "$WORK/$name.info" ||
		fail "$name: info does not say stack overflow: $(grep '^crash' "$WORK/$name.info")"
	grep -q "^calltrace: pid [0-9]* tid [0-9]* [a-z_]* crashed: signal 11 (Segmentation fault): stack overflow, " \
		"$WORK/$name.err" || fail "$name: stderr does not say it: $(head -c 300 "$WORK/$name.err")"
}

for engine in hooks patch ptrace; do
	for mode in main thread; do
		overflow_case "$engine" "$mode"
	done
done
# Two functions that call each other: one line for the cycle, with its
# count, the other function on the next; every call of the two counted.
(
	ulimit -s 1024
	record mutual "$WORK/overflow" mutual
)
ct crash -o "$WORK/mutual.crash" "$WORK/mutual.trace"
ct report -o "$WORK/mutual.report" "$WORK/mutual.trace"
calls=$(($(report_calls "$WORK/mutual.report" recurse_ping) + $(report_calls "$WORK/mutual.report" recurse_pong)))
grep -Eq "^  #0   recurse_p(i|o)ng at overflow\.c:[0-9]+  \(×[0-9]+ cycles of these 2 calls: [0-9]+ frames, calls [0-9]+ to [0-9]+\)$" \
	"$WORK/mutual.crash" || fail "mutual: the cycle is not one line: $(grep -m1 '^  #' "$WORK/mutual.crash")"
grep -Eq "^  #1   recurse_p(i|o)ng at overflow\.c:[0-9]+$" "$WORK/mutual.crash" ||
	fail "mutual: the cycle's second function: $(grep '^  #' "$WORK/mutual.crash" | sed -n 2p)"
shown=$(awk '/^  #[0-9]+ +recurse_p(i|o)ng / {
	if (match($0, /[0-9]+ frames, calls/)) s += substr($0, RSTART) + 0
	else if (/\(call [0-9]+\)$/) s++
} END { print s + 0 }' "$WORK/mutual.crash")
[ "$shown" = "$calls" ] || fail "mutual: the report shows $shown calls of the two, the trace has $calls"
[ "$(grep -c '^  #' "$WORK/mutual.crash")" -le 4 ] || fail "mutual: $(grep -c '^  #' "$WORK/mutual.crash") stack lines"

# Without the tool, the runtime says it all the same, the recursion as one
# line of addresses with its count.
rc=0
(
	ulimit -s 1024
	CALLTRACE_TOOL=$WORK/none CALLTRACE_OUTPUT=$WORK/notool.trace LD_PRELOAD=$RUNTIME \
		"$WORK/overflow" main >/dev/null 2>"$WORK/notool.err"
) 2>/dev/null || rc=$?
[ "$rc" = 139 ] || fail "no tool: exit $rc"
grep -Eq "^calltrace: process [0-9]+ died of signal 11 \(Segmentation fault\) in thread [0-9]+, fault address 0x[0-9a-f]+: stack overflow$" \
	"$WORK/notool.err" || fail "no tool: no stack overflow line: $(head -c 300 "$WORK/notool.err")"
ct report -o "$WORK/notool.report" "$WORK/notool.trace"
calls=$(report_calls "$WORK/notool.report" recurse_forever)
grep -Eq "^calltrace:   #0 0x[0-9a-f]+  \(×$calls frames\)$" "$WORK/notool.err" ||
	fail "no tool: the recursion is not one line of $calls frames: $(grep -m1 '^calltrace:   #' "$WORK/notool.err")"
[ "$(grep -c '^calltrace:   #' "$WORK/notool.err")" = 2 ] || fail "no tool: not 2 lines of open calls"

# The in-process engine: the fault is in calltrace's code, and said so.
grep -q "^  in recurse_forever at overflow.c:[0-9]*  (in calltrace's code for its entry)$" \
	"$WORK/patch_main.crash" || fail "patch: the site is $(sed -n 2p "$WORK/patch_main.crash")"
pass
