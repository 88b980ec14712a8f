#!/usr/bin/env bash
# views_chrome.sh - `calltrace chrome` on multimod and on the threads
# program: the JSON parses, holds an "X" event for every call with file,
# line and seq, events of each thread nest, every process and thread is
# named.
source "$(dirname "$0")/lib.sh"
setup
check() { python3 "$ROOT/tests/e2e/check_views.py" "$@" 2>"$WORK/check.err" || fail "check_views $1: $(tail -n 1 "$WORK/check.err")" >&2; }

build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
ct chrome "$WORK/mm.trace" >"$WORK/mm.json"
check chrome "$WORK/mm.json" >"$WORK/mm.out"
[ "$(head -n 1 "$WORK/mm.out")" = 27 ] || fail "chrome: $(head -n 1 "$WORK/mm.out") events, 27 expected"
[ "$(tail -n +2 "$WORK/mm.out" | wc -l)" = 5 ] || fail "chrome: not 5 named threads"
[ "$(tail -n +2 "$WORK/mm.out" | cut -d' ' -f1 | sort -u | wc -l)" = 3 ] || fail "chrome: not 3 processes"
grep -q '"name":"sh_clamp","cat":"function","ph":"X","ts":[0-9]*\.[0-9]\{3\},"dur":[0-9]*\.[0-9]\{3\},' "$WORK/mm.json" ||
	fail "chrome: sh_clamp event not in the expected form"

build_c threads "$PROGRAMS/threads.c"
record threads "$WORK/threads"
ct chrome -o "$WORK/threads.json" "$WORK/threads.trace"
check chrome "$WORK/threads.json" >"$WORK/threads.out"
[ "$(tail -n +2 "$WORK/threads.out" | wc -l)" = 5 ] || fail "chrome: the threads program does not show 5 threads"
ct chrome --tid "$(sed -n 2p "$WORK/threads.out" | cut -d' ' -f2)" -o "$WORK/one.json" "$WORK/threads.trace"
check chrome "$WORK/one.json" >"$WORK/one.out"
[ "$(tail -n +2 "$WORK/one.out" | wc -l)" = 1 ] || fail "chrome --tid: not one thread"
pass
