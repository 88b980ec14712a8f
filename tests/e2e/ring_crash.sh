#!/usr/bin/env bash
# ring_crash.sh - record --ring: a program that calls a long time, then
# crashes in a known function, recorded in a small ring.  The file stays
# within the ring's size (plus its headers and records); the crash report
# names the crash site and the calls open (main's enter overwritten: shown
# entered before the kept calls); the last calls before the crash are all
# there, the older ones gone and counted as overwritten, to the call.  With
# four threads, one of which calls rarely, that one's calls are all kept.
# The same without record: CALLTRACE_RING for the preloaded runtime (whose
# own crash report names the open calls at once); a bad size is said in one
# line, and the trace grows as usual.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c ring_crash "$PROGRAMS/ring/ring_crash.c"

RING=262144 EARLY=1000000 LAST=1000
SLACK=65536 # the header page, the slot table, module and process records

check_crash() { # NAME: the crash report of $WORK/NAME.trace
	local name=$1
	ct crash "$WORK/$name.trace" >"$WORK/$name.crash"
	grep -q "^  in crash_inner at ring_crash.c:" "$WORK/$name.crash" ||
		fail "$name: the crash site is not crash_inner: $(head -c 400 "$WORK/$name.crash")"
	got=$(grep '^  #' "$WORK/$name.crash" | sed 's/ at [^ ]*//; s/  */ /g; s/(call [0-9]*)/(call)/')
	expected=$(printf ' #0 crash_inner (call)\n #1 crash_outer (call)\n #2 main (entered before the kept calls)')
	[ "$got" = "$expected" ] || fail "$name: open calls '$got', expected '$expected'"
}

check_size() { # NAME
	local size
	size=$(stat -c %s "$WORK/$1.trace")
	[ "$size" -le $((RING + SLACK)) ] || fail "$1: the trace has $size bytes, ring $RING"
}

# info's ring line: "N windows (C calls) overwritten; B calls kept were entered before"
ring_numbers() { # NAME -> "WINDOWS CALLS BEFORE KEPT_CALLS"
	ct info "$WORK/$1.trace" >"$WORK/$1.info"
	local kept
	kept=$(awk '/^calls:/ { print $2 }' "$WORK/$1.info")
	sed -n 's/^ring: .*; \([0-9]*\) windows (\([0-9]*\) calls) overwritten; \([0-9]*\) calls kept.*/\1 \2 \3/p' \
		"$WORK/$1.info" | sed "s/\$/ $kept/"
}

# One thread.
record one --ring 256K --no-libcall "$WORK/ring_crash" $EARLY $LAST
[ "$RC" = 139 ] || fail "one: exit $RC, not death by SIGSEGV: $(head -c 300 "$WORK/one.err")"
check_size one
check_crash one
ct report "$WORK/one.trace" >"$WORK/one.report"
[ "$(report_calls "$WORK/one.report" last_work)" = $LAST ] ||
	fail "one: $(report_calls "$WORK/one.report" last_work) calls of last_work kept, not $LAST"
early=$(report_calls "$WORK/one.report" early_work)
[ "$early" -gt 0 ] && [ "$early" -lt $EARLY ] || fail "one: $early calls of early_work kept"
read -r windows over before kept < <(ring_numbers one)
[ "${windows:-0}" -gt 0 ] || fail "one: no window counted as overwritten: $(grep ring "$WORK/one.info")"
# Every call made is kept or counted overwritten (main's is both).
[ $((kept - before + over)) = $((EARLY + LAST + 3)) ] ||
	fail "one: $kept kept - $before entered before + $over overwritten != $((EARLY + LAST + 3)) calls made"
# The calls kept are the last ones: last_work's all after early_work's.
ct replay "$WORK/one.trace" >"$WORK/one.replay"
tail -n 5 "$WORK/one.replay" | grep -q 'last_work();' || fail "one: the replay does not end with last_work"
grep -q '} /\* main \*/ /\* entered before the kept calls, unfinished \*/' "$WORK/one.replay" ||
	fail "one: main is not shown entered before the kept calls: $(tail -n 2 "$WORK/one.replay")"
# The other views say it too: json, chrome, the flame chart's tooltip,
# seq, graph, report, speedscope.
to_json one
python3 - "$WORK/one.json" <<'PY' || fail "one: json does not mark main entered before the kept calls"
import json, sys
tree = json.load(open(sys.argv[1]))["call_trees"]
main = next(iter(tree.values()))["calls"][0]
sys.exit(0 if main["function"] == "main" and main.get("entered_before") is True
         and main.get("unfinished") is True else 1)
PY
ct chrome -o "$WORK/one.chrome.json" "$WORK/one.trace"
grep -q '"name":"main".*"entered_before":true' "$WORK/one.chrome.json" ||
	fail "one: chrome does not mark main entered before the kept calls"
ct flame -o "$WORK/one.svg" "$WORK/one.trace"
grep -q '(entered before the kept calls) (unfinished)' "$WORK/one.svg" ||
	fail "one: the flame chart does not mark main entered before the kept calls"
# seq: the call's message and a note; graph: the node's counts.
ct seq "$WORK/one.trace" >"$WORK/one.seq"
grep -q 'label = "main() (entered before the kept calls)"' "$WORK/one.seq" &&
	grep -q '^  \.\.\. unfinished: main() \.\.\.$' "$WORK/one.seq" ||
	fail "one: seq does not mark main: $(grep -m2 'main' "$WORK/one.seq")"
ct graph "$WORK/one.trace" >"$WORK/one.dot"
grep -q 'label="main\\n[^"]*1 call, [^"]*, 1 entered before the kept calls, 1 unfinished"' "$WORK/one.dot" &&
	grep -q 'label="crash_inner\\n[^"]*1 call, [^"]*), 1 unfinished"' "$WORK/one.dot" ||
	fail "one: graph does not mark main and crash_inner: $(grep -E 'main|crash_inner' "$WORK/one.dot")"
# report: a line under the table; speedscope: a frame of its own.
grep -q '^# main: 1 call entered before the kept calls, 1 unfinished$' "$WORK/one.report" ||
	fail "one: the report does not mark main: $(grep '^#' "$WORK/one.report")"
grep -q '^# crash_inner: 1 unfinished$' "$WORK/one.report" ||
	fail "one: the report does not mark crash_inner unfinished: $(grep '^#' "$WORK/one.report")"
ct speedscope -o "$WORK/one.speedscope.json" "$WORK/one.trace"
python3 - "$WORK/one.speedscope.json" <<'PY' || fail "one: speedscope does not mark main entered before the kept calls"
import json, sys
names = [f["name"] for f in json.load(open(sys.argv[1]))["shared"]["frames"]]
sys.exit(0 if "main (entered before the kept calls)" in names and "main" not in names
         and "last_work" in names else 1)
PY

# Four threads: three busy all the while, one that called 25 times at the start.
record four --ring 256K --no-libcall "$WORK/ring_crash" $EARLY $LAST 4
[ "$RC" = 139 ] || fail "four: exit $RC: $(head -c 300 "$WORK/four.err")"
check_size four
check_crash four
ct report "$WORK/four.trace" >"$WORK/four.report"
[ "$(report_calls "$WORK/four.report" rare_work)" = 25 ] ||
	fail "four: $(report_calls "$WORK/four.report" rare_work) calls of rare_work kept, not 25"
[ "$(report_calls "$WORK/four.report" last_work)" = $LAST ] ||
	fail "four: $(report_calls "$WORK/four.report" last_work) calls of last_work kept, not $LAST"
read -r windows over before kept < <(ring_numbers four)
[ "${over:-0}" -gt 0 ] || fail "four: no call counted as overwritten"
grep -q "problems:   0" "$WORK/four.info" || fail "four: problems: $(grep -A3 problems "$WORK/four.info")"
# --buffer-size with --ring (whose windows are its sixteenths): refused in
# one line, no trace written.
RC=0
"$CALLTRACE" record --ring 1M --buffer-size 64K -o "$WORK/both.trace" "$WORK/ring_crash" 10 10 \
	>/dev/null 2>"$WORK/both.err" || RC=$?
[ "$RC" = 2 ] && [ "$(wc -l <"$WORK/both.err")" = 1 ] && grep -q -- "--buffer-size does not go with --ring" "$WORK/both.err" ||
	fail "--ring with --buffer-size: exit $RC, $(head -c 200 "$WORK/both.err")"
[ -e "$WORK/both.trace" ] && fail "--ring with --buffer-size left a trace"
# The preloaded runtime, CALLTRACE_RING.
RC=0
{ CALLTRACE_RING=256K CALLTRACE_LIBCALL=0 CALLTRACE_OUTPUT="$WORK/pre.trace" LD_PRELOAD="$RUNTIME" \
	"$WORK/ring_crash" $EARLY $LAST >/dev/null 2>"$WORK/pre.err" || RC=$?; } 2>/dev/null
[ "$RC" = 139 ] || fail "preloaded: exit $RC: $(head -c 300 "$WORK/pre.err")"
check_size pre
check_crash pre
grep -q '^calltrace:   #2   main at ring_crash.c:[0-9]*  (entered before the kept calls)$' "$WORK/pre.err" ||
	fail "preloaded: the crash report on stderr lacks main: $(grep '#' "$WORK/pre.err")"
read -r windows over before kept < <(ring_numbers pre)
[ $((kept - before + over)) = $((EARLY + LAST + 3)) ] ||
	fail "preloaded: $kept kept - $before entered before + $over overwritten != $((EARLY + LAST + 3))"

RC=0
{ CALLTRACE_RING=12K CALLTRACE_LIBCALL=0 CALLTRACE_OUTPUT="$WORK/bad.trace" LD_PRELOAD="$RUNTIME" \
	"$WORK/ring_crash" 1000 10 >/dev/null 2>"$WORK/bad.err" || RC=$?; } 2>/dev/null
[ "$RC" = 139 ] || fail "bad size: exit $RC"
grep -q "^calltrace: CALLTRACE_RING=12K is not a size from 64K (e.g. 16M); the trace is not a ring$" \
	"$WORK/bad.err" || fail "bad size: not said: $(head -c 300 "$WORK/bad.err")"
ct report "$WORK/bad.trace" >"$WORK/bad.report"
[ "$(report_calls "$WORK/bad.report" early_work)" = 1000 ] || fail "bad size: the trace is not whole"
pass
