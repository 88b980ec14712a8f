#!/usr/bin/env bash
# core_max_lines.sh - the function graph stops after --max-lines lines and
# says how to see the rest: `replay` names the command with --max-lines 0,
# `live` keeps its trace and names it; the graph is whole lines, the first
# N of the full one; 0, or an output to a file, is no bound; a bad value
# gets one line.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c tree "$PROGRAMS/tree.c"
mkdir "$WORK/tmp"
export TMPDIR=$WORK/tmp

# live: 5 lines of the graph on stderr, the trace kept, the exact command.
RC=0
"$CALLTRACE" live --max-lines 5 --no-duration "$WORK/tree" >/dev/null 2>"$WORK/live.err" || RC=$?
[ "$RC" = 0 ] || fail "live --max-lines 5: exit $RC: $(cat "$WORK/live.err")"
kept=$(ls -d "$WORK"/tmp/calltrace-live-*/live.trace 2>/dev/null)
[ -n "$kept" ] && [ -s "$kept" ] || fail "live --max-lines 5: no trace kept in $WORK/tmp"
[ "$(grep -vc '^calltrace: ' "$WORK/live.err")" = 5 ] || fail "live --max-lines 5: $(cat "$WORK/live.err")"
[ "$(tail -n 1 "$WORK/live.err")" = "calltrace: the graph stopped after 5 lines (--max-lines); the trace is kept: calltrace replay --max-lines 0 --no-duration $kept" ] ||
	fail "live --max-lines 5 said: $(tail -n 1 "$WORK/live.err")"
# The command it names shows the whole graph: 3 header lines, 20 of calls.
"$CALLTRACE" replay --max-lines 0 --no-duration "$kept" >"$WORK/all.out" 2>"$WORK/all.err" ||
	fail "the command named failed: $(cat "$WORK/all.err")"
[ "$(wc -l <"$WORK/all.out")" = 23 ] && [ ! -s "$WORK/all.err" ] ||
	fail "replay --max-lines 0: $(wc -l <"$WORK/all.out") lines, said $(cat "$WORK/all.err")"
head -n 5 "$WORK/all.out" | sed 's/\[ *[0-9]*\]/[TID]/; s/pid [0-9]* tid [0-9]*/pid tid/' >"$WORK/first5.expected"
grep -v '^calltrace: ' "$WORK/live.err" | sed 's/\[ *[0-9]*\]/[TID]/; s/pid [0-9]* tid [0-9]*/pid tid/' >"$WORK/first5.got"
expect_text "live --max-lines 5: the first 5 lines" "$WORK/first5.expected" "$WORK/first5.got"

# A graph of exactly N lines is not cut; N-1 is, and the temporary trace goes
# when nothing was cut.
cp "$kept" "$WORK/tree.trace"
kept=$WORK/tree.trace
rm -rf "$WORK/tmp"/*
"$CALLTRACE" live --max-lines 23 "$WORK/tree" >/dev/null 2>"$WORK/exact.err" || fail "live --max-lines 23"
[ "$(wc -l <"$WORK/exact.err")" = 23 ] && ! grep -q '^calltrace:' "$WORK/exact.err" ||
	fail "live --max-lines 23 (the whole graph): $(tail -n 2 "$WORK/exact.err")"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "the temporary trace was left: $(ls "$WORK/tmp")"

# replay: the user's command, with --max-lines 0 in place of theirs.
"$CALLTRACE" replay --max-lines 22 -F 'compute|emit' "$kept" >"$WORK/r.out" 2>"$WORK/r.err" ||
	fail "replay --max-lines 22: $(cat "$WORK/r.err")"
[ ! -s "$WORK/r.err" ] || fail "replay -F of fewer lines than the bound: $(cat "$WORK/r.err")"
"$CALLTRACE" replay --max-lines 4 -F 'compute|emit' --no-tid "$kept" >"$WORK/r.out" 2>"$WORK/r.err" ||
	fail "replay --max-lines 4: $(cat "$WORK/r.err")"
[ "$(wc -l <"$WORK/r.out")" = 4 ] || fail "replay --max-lines 4 wrote $(wc -l <"$WORK/r.out") lines"
[ "$(cat "$WORK/r.err")" = "calltrace: the graph stopped after 4 lines (--max-lines); all of it: calltrace replay --max-lines 0 -F 'compute|emit' --no-tid $kept" ] ||
	fail "replay --max-lines 4 said: $(cat "$WORK/r.err")"
# To a file, no bound by default.
"$CALLTRACE" replay -o "$WORK/file.out" "$kept" 2>"$WORK/file.err" || fail "replay -o"
[ "$(wc -l <"$WORK/file.out")" = 23 ] && [ ! -s "$WORK/file.err" ] || fail "replay -o: cut or said $(cat "$WORK/file.err")"

RC=0
"$CALLTRACE" replay --max-lines many "$kept" >/dev/null 2>"$WORK/bad.err" || RC=$?
[ "$RC" = 2 ] && [ "$(cat "$WORK/bad.err")" = "calltrace: replay: --max-lines wants a number of lines (0: no bound), not 'many'" ] ||
	fail "replay --max-lines many: exit $RC, said $(cat "$WORK/bad.err")"
RC=0
"$CALLTRACE" live --max-lines -3 "$WORK/tree" >/dev/null 2>"$WORK/bad.err" || RC=$?
[ "$RC" = 2 ] && [ "$(wc -l <"$WORK/bad.err")" = 1 ] || fail "live --max-lines -3: exit $RC, said $(cat "$WORK/bad.err")"
pass
