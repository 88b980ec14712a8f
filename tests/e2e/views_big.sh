#!/usr/bin/env bash
# views_big.sh - the views on a program too big to draw call by call:
# requests (tests/programs/views: 3000 requests through four source files,
# about 450000 calls, each request far narrower than a pixel).  The flame
# chart accounts for every call, names a function in every frame and block
# and gives every function that ran a frame of its own, also when the
# requests come 3 at a time between pauses (slivers of a pixel); the merged
# flame graph draws every function; seq picks source files as lifelines (one module) and says so, cuts
# with a note, shows the marks; the call graph folds; chrome has the marks
# as instant events and a time window; a walk shows its progress on a
# terminal, and nothing when stderr is a file; replay shows the marks; an
# output too big for a browser is announced before it is written.
source "$(dirname "$0")/lib.sh"
setup
check() { python3 "$ROOT/tests/e2e/check_views.py" "$@" 2>"$WORK/check.err" || fail "check_views $1: $(tail -n 1 "$WORK/check.err")" >&2; }

build_c requests "$PROGRAMS"/views/{requests,parse,handle,store}.c
record requests "$WORK/requests"
T=$WORK/requests.trace
calls=$("$CALLTRACE" info "$T" | sed -n 's/^calls: *\([0-9]*\) .*/\1/p')
[ "$calls" -gt 400000 ] || fail "requests made $calls calls, about 450000 expected"
ct flame --folded "$T" >"$WORK/req.folded"
sed 's/ [0-9]*$//; s/.*;//' "$WORK/req.folded" | sort -u >"$WORK/functions"
[ "$(wc -l <"$WORK/functions")" = 14 ] || fail "requests ran $(wc -l <"$WORK/functions") functions, 14 expected"

# The ordered flame chart: every call, every function, no nameless block.
ct flame -o "$WORK/chart.svg" "$T"
read -r drawn bands < <(check flame "$WORK/chart.svg")
[ "$drawn" = "$calls" ] && [ "$bands" = 1 ] || fail "flame chart accounts for $drawn of $calls calls in $bands bands"
# Every function is named (by a frame or a block that lists it), and every
# function that ran has a frame of its own, whatever the recorded timing.
check flame-named "$WORK/chart.svg" >"$WORK/chart.named"
missing=$(comm -23 "$WORK/functions" "$WORK/chart.named" | tr '\n' ' ')
[ -z "$missing" ] || fail "flame chart names nowhere: $missing"
own_frames() { # SVG: fails unless every function that ran has a frame of its own
	check flame-functions "$1" >"$WORK/own.functions"
	missing=$(comm -23 "$WORK/functions" "$WORK/own.functions" | tr '\n' ' ')
	[ -z "$missing" ] || fail "$1: no frame of its own for: $missing"
	check flame-over "$1" >"$WORK/own.over"
}
own_frames "$WORK/chart.svg"
grep -q '<title>handle_request ×[0-9]' "$WORK/chart.svg" || fail "flame chart: no frame 'handle_request ×N'"
size=$(stat -c %s "$WORK/chart.svg")
detail=$(check flame-detail "$WORK/chart.svg")
[ "$size" -lt 10000000 ] && [ "$detail" -le 250000 ] && [ "$detail" -gt 1000 ] ||
	fail "flame chart: $size bytes, $detail calls for zooming in"
# Requests 3 at a time between pauses of 1 ms: each group of requests is a
# sliver of a pixel, so no function but main has room for a frame where it
# ran; those seen only inside merged blocks get one on top of them, 1 px
# wide, apart from each other, their calls counted once.
"$CALLTRACE" record -o "$WORK/paused.trace" "$WORK/requests" 600 3 >/dev/null 2>&1 || fail "cannot record requests 600 3"
ct flame -o "$WORK/paused.svg" "$WORK/paused.trace"
paused=$("$CALLTRACE" info "$WORK/paused.trace" | sed -n 's/^calls: *\([0-9]*\) .*/\1/p')
read -r drawn bands < <(check flame "$WORK/paused.svg")
[ "$drawn" = "$paused" ] || fail "paused requests: the chart accounts for $drawn of $paused calls"
own_frames "$WORK/paused.svg"
[ -s "$WORK/own.over" ] || fail "paused requests: no frame drawn over a merged block"
grep -q 'functions seen only inside merged blocks drawn over them' "$WORK/paused.svg" ||
	fail "paused requests: the status line does not say so"
ct flame -F '^handle_request$' -o "$WORK/F.svg" "$T"
F_calls=$(awk '$1 ~ /^main;handle_request/ { n += $2 } END { print n }' "$WORK/req.folded")
read -r drawn bands < <(check flame "$WORK/F.svg")
[ "$drawn" = "$F_calls" ] || fail "flame -F handle_request accounts for $drawn of $F_calls calls"

# The merged flame graph.
ct flame --merged -o "$WORK/merged.svg" "$T"
read -r drawn bands < <(check flame "$WORK/merged.svg")
[ "$drawn" = "$calls" ] || fail "flame --merged accounts for $drawn of $calls calls"
check flame-functions "$WORK/merged.svg" >"$WORK/merged.functions"
cmp -s "$WORK/functions" "$WORK/merged.functions" || fail "flame --merged does not draw every function"

# seq: one module, so source files are the lifelines; cut with a note; marks.
ct seq -f mermaid "$T" >"$WORK/seq.mmd"
check mermaid "$WORK/seq.mmd" >/dev/null
grep -qx '  title lifelines: source files (every call ran in requests), from main' "$WORK/seq.mmd" ||
	fail "seq: the default lifelines are not the source files: $(sed -n 2p "$WORK/seq.mmd")"
for f in requests.c parse.c handle.c store.c; do
	grep -q "^  participant P[0-9]* as $f$" "$WORK/seq.mmd" || fail "seq: no lifeline for $f"
done
grep -Eq '^  Note over P0,P[0-9]+: [0-9]+ more calls of this thread not shown \(--max-calls 500\) after call (#|#35;)500 at .*--max-calls 0' "$WORK/seq.mmd" ||
	fail "seq: no note where the diagram is cut"
grep -qx '  Note over P1: mark: serving' "$WORK/seq.mmd" || fail "seq: the mark 'serving' is not a note"
ct seq -f svg -o "$WORK/seq.svg" "$T"
check xml "$WORK/seq.svg" "lifelines: source files" "mark: request 0" "store.c"

# The call graph folds on request.
ct graph --min-share 20 "$T" >"$WORK/graph.dot"
grep -q 'functions under 20% of the time' "$WORK/graph.dot" && grep -q 'label="other functions' "$WORK/graph.dot" ||
	fail "graph --min-share 20 folds nothing"

# chrome: the marks as instant events; a window of time.
ct chrome -o "$WORK/chrome.json" "$T"
check chrome "$WORK/chrome.json" >"$WORK/chrome.out"
[ "$(head -n 1 "$WORK/chrome.out")" = "$calls" ] || fail "chrome: not an event for every call"
[ "$(grep -c '^mark ' "$WORK/chrome.out")" = 4 ] || fail "chrome: not 4 mark events"
grep -qx 'mark request 2000' "$WORK/chrome.out" || fail "chrome: no mark 'request 2000'"
start=$(python3 -c "import json; e=[x for x in json.load(open('$WORK/chrome.json'))['traceEvents'] if x.get('name')=='request 1000']; print(int(e[0]['ts']))")
ct chrome --from "${start}us" --to "$((start + 500))us" -o "$WORK/window.json" "$T"
check chrome "$WORK/window.json" >"$WORK/window.out"
in_window=$(head -n 1 "$WORK/window.out")
[ "$in_window" -gt 0 ] && [ "$in_window" -lt "$calls" ] || fail "chrome --from/--to: $in_window of $calls calls"
grep -qx 'mark request 1000' "$WORK/window.out" || fail "chrome --from/--to: the mark in the window is missing"
! "$CALLTRACE" chrome --from 2s --to 1s "$T" >/dev/null 2>"$WORK/err" && grep -q "after --to" "$WORK/err" ||
	fail "chrome --from after --to does not fail with a message"

# A walk shows how far it got on a terminal (a pseudo-terminal of its own),
# and nothing when stderr is a file.  The line comes after a second, which
# CALLTRACE_PROGRESS_AFTER=0 makes at once, whatever the machine's speed.
CALLTRACE_PROGRESS_AFTER=0 python3 "$ROOT/tests/e2e/run_on_tty.py" "$CALLTRACE" chrome -o /dev/null "$T" \
	>"$WORK/tty.out" || fail "chrome on a terminal failed: $(tail -n 1 "$WORK/tty.out")"
grep -aq 'calltrace: reading the trace: [0-9]*%' "$WORK/tty.out" || fail "no progress line on a terminal"
CALLTRACE_PROGRESS_AFTER=0 ct chrome -o /dev/null "$T"
! grep -q 'reading the trace' "$WORK/ct.err" || fail "a progress line where stderr is a file"
CALLTRACE_PROGRESS_AFTER=soon python3 "$ROOT/tests/e2e/run_on_tty.py" "$CALLTRACE" chrome -D 1 -o /dev/null "$T" \
	>"$WORK/tty.out" || fail "chrome on a terminal failed: $(tail -n 1 "$WORK/tty.out")"
[ "$(grep -ac 'CALLTRACE_PROGRESS_AFTER=soon is not a number of seconds' "$WORK/tty.out")" = 1 ] ||
	fail "CALLTRACE_PROGRESS_AFTER=soon is not said once: $(head -c 200 "$WORK/tty.out")"

# replay shows the marks where they happened.
ct replay "$T" >"$WORK/replay.txt"
grep -Eq '^ +\[ *[0-9]+\] \|     /\* mark: request 1000 \*/$' "$WORK/replay.txt" || fail "replay: no line for the mark 'request 1000'"

# 60000 requests (9 million calls): chrome says the output is too big
# before writing it (to /dev/full: nothing is kept).  Not under the
# sanitizers, which would take minutes over it.
case "$BUILD" in *asan*) pass ;; esac
"$CALLTRACE" record -o "$WORK/big.trace" "$WORK/requests" 60000 >/dev/null 2>&1 || fail "cannot record 60000 requests"
! "$CALLTRACE" chrome -o /dev/full "$WORK/big.trace" 2>"$WORK/big.err" &&
	grep -Eq '^calltrace: warning: .* the Chrome JSON will be about [0-9.]+ GB, more than browsers .*--from/--to' "$WORK/big.err" ||
	fail "chrome on 6 million calls does not warn: $(head -n 1 "$WORK/big.err")"
"$CALLTRACE" chrome -D 2 -o "$WORK/big.json" "$WORK/big.trace" 2>"$WORK/big.err" && ! grep -q warning "$WORK/big.err" ||
	fail "chrome -D 2 still warns or fails"
pass
