#!/usr/bin/env bash
# core_defaults.sh - without -o, record writes calltrace.trace in the current
# directory and says so; without a TRACE argument the reading commands read
# it; json without -o writes the same document to stdout.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c exec_target "$PROGRAMS/exec_target.c"
mkdir "$WORK/run"
cd "$WORK/run"
RC=0
"$CALLTRACE" record "$WORK/exec_target" 5 >"$WORK/out" 2>"$WORK/err" || RC=$?
[ "$RC" = 5 ] || fail "record exited $RC, not the program's 5"
[ -s calltrace.trace ] || fail "no calltrace.trace in the current directory"
grep -q '^calltrace: .*calltrace\.trace' "$WORK/err" || fail "record does not say where the trace went"
[ "$(cat "$WORK/out")" = "exec target: 3" ] || fail "stdout: $(head -c 100 "$WORK/out")"

for cmd in replay report info; do
	ct "$cmd" >"$WORK/$cmd.default"
	ct "$cmd" calltrace.trace >"$WORK/$cmd.named"
	[ -s "$WORK/$cmd.default" ] || fail "$cmd without a trace printed nothing"
	cmp -s "$WORK/$cmd.default" "$WORK/$cmd.named" || fail "$cmd without a trace differs from $cmd calltrace.trace"
done
ct json >"$WORK/stdout.json"
ct json -o "$WORK/file.json"
cmp -s "$WORK/stdout.json" "$WORK/file.json" || fail "json to stdout differs from json -o FILE"
check_tree schema "$WORK/stdout.json" --command "$WORK/exec_target 5" --total --files
cp "$WORK/stdout.json" "$WORK/d.json"
expect_trees d <<'TREES'
== process 1 main
main
  target_start
    target_leaf [x2]
  target_finish
TREES
cd "$ROOT"
pass
