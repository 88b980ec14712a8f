#!/usr/bin/env bash
# views_graph.sh - `calltrace graph` on multimod: the dot text renders with
# graphviz, clusters the functions by module and labels the edges with
# their calls; the SVG (through dot, and our own layout) parses as XML;
# --focus finds the paths from every thread and process.
source "$(dirname "$0")/lib.sh"
setup
need_cmd dot
check() { python3 "$ROOT/tests/e2e/check_views.py" "$@" 2>"$WORK/check.err" || fail "check_views $1: $(tail -n 1 "$WORK/check.err")" >&2; }

build_multimod "$WORK/mm" pie
record mm "$WORK/mm/multimod" "$WORK/mm/plugin.so"
T=$WORK/mm.trace

ct graph "$T" >"$WORK/mm.dot"
dot -Tsvg "$WORK/mm.dot" -o "$WORK/mm.dot.svg" 2>"$WORK/dot.err" || fail "dot cannot render it: $(tail -n 1 "$WORK/dot.err")"
check xml "$WORK/mm.dot.svg" "libshared.so" "plugin.so" "sh_clamp" "4 calls"
check dot "$WORK/mm.dot" >"$WORK/mm.graph"
grep -qxF "cluster libshared.so: sh_clamp sh_scale" "$WORK/mm.graph" || fail "no libshared.so cluster with sh_scale and sh_clamp"
grep -qxF "cluster plugin.so: pl_double pl_entry" "$WORK/mm.graph" || fail "no plugin.so cluster"
grep -q "^cluster multimod: .*\bst_square\b" "$WORK/mm.graph" || fail "st_square (static library) is not in the multimod cluster"
grep -q '^sh_scale -> sh_clamp: 2 calls\\n' "$WORK/mm.graph" || fail "no edge sh_scale -> sh_clamp with 2 calls"
grep -q '^use_plugin -> pl_entry: 1 call\\n[0-9.]* [nmu]*s$' "$WORK/mm.graph" || fail "no edge use_plugin -> pl_entry with its time"
[ "$(grep -c -- ' -> ' "$WORK/mm.graph")" = 21 ] || fail "not 21 caller/callee pairs"
[ "$(grep -Ec '^\s*n[0-9]+ \[label=' "$WORK/mm.dot")" = 20 ] || fail "not 20 functions"

# Folding: functions under half of the time go into "other functions" (one
# node per module), with a note; --all after it folds nothing.
ct graph --min-share 50 "$T" >"$WORK/fold.dot"
dot -Tsvg "$WORK/fold.dot" -o "$WORK/fold.svg" 2>"$WORK/dot.err" || fail "dot cannot render the folded graph"
grep -q '^  label="[0-9]* functions under 50% of the time .*folded into \\"other functions\\"' "$WORK/fold.dot" ||
	fail "the folded graph has no note saying so"
kept=$(grep -Ec '^\s*n[0-9]+ \[label=' "$WORK/fold.dot")
others=$(grep -c 'label="other functions' "$WORK/fold.dot")
[ "$kept" -lt 20 ] && [ "$others" -ge 1 ] || fail "--min-share 50 keeps $kept nodes, $others of them 'other functions'"
ct graph --min-share 50 --all "$T" >"$WORK/all.dot"
[ "$(grep -Ec '^\s*n[0-9]+ \[label=' "$WORK/all.dot")" = 20 ] && ! grep -q 'other functions' "$WORK/all.dot" ||
	fail "graph --all folds something"
ct graph -f svg --own-layout --max-nodes 5 -o "$WORK/fold-own.svg" "$T"
check xml "$WORK/fold-own.svg" "other functions" "past the heaviest folded"

ct graph -f svg -o "$WORK/g.svg" "$T"
check xml "$WORK/g.svg" "libshared.so" "pl_double"
ct graph -f svg --own-layout -o "$WORK/own.svg" "$T"
check xml "$WORK/own.svg" "libshared.so" "plugin.so" "multimod" "pl_double" "thread_b_main" "2 calls"
ct graph -f dot -F '^thread_a_main$' "$T" >"$WORK/a.dot"
[ "$(grep -Ec '^\s*n[0-9]+ \[label=' "$WORK/a.dot")" = 3 ] || fail "graph -F thread_a_main: not 3 functions"
# --focus: sh_clamp's 4 calls, from the main thread, a thread and two
# child processes, each root with its one call (the threads' order is the
# record's: not checked).
ct graph --focus sh_clamp "$T" >"$WORK/focus.txt"
grep -q '^# call paths to sh_clamp: 4 calls, ' "$WORK/focus.txt" || fail "graph --focus sh_clamp: not 4 calls: $(head -n 1 "$WORK/focus.txt")"
for from in main child_exit_work child_quick_work thread_b_main; do
	grep -qE "^ +[0-9.]+ [nmu]?s +1  $from\$" "$WORK/focus.txt" || fail "graph --focus sh_clamp: no path from $from"
done
[ "$(grep -cE '^ +[0-9.]+ [nmu]?s +[0-9]+  ' "$WORK/focus.txt")" = 13 ] || fail "graph --focus sh_clamp: not 12 path lines and sh_clamp's"
! "$CALLTRACE" graph -f png "$T" >/dev/null 2>"$WORK/err" && grep -q "unknown format" "$WORK/err" ||
	fail "graph -f png does not fail with a message"

# Two instances of one template would show alike: named as report names
# them, by their parameters, in dot and in the SVG.
cat >"$WORK/twice.cpp" <<'CPP'
template <typename T> T twice(T x) { return x + x; }
int main() { return twice(3) + (int)twice(1.5) == 9 ? 0 : 1; }
CPP
build_cxx twice "$WORK/twice.cpp"
record twice "$WORK/twice"
ct graph "$WORK/twice.trace" >"$WORK/twice.dot"
for name in 'twice(int)' 'twice(double)'; do
	[ "$(grep -cF "[label=\"$name\n" "$WORK/twice.dot")" = 1 ] ||
		fail "graph does not name one node $name: $(grep -F twice "$WORK/twice.dot" | head -3)"
done
ct graph -f svg --own-layout -o "$WORK/twice.svg" "$WORK/twice.trace"
check xml "$WORK/twice.svg" "twice(int)" "twice(double)"
pass
