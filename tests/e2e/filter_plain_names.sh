#!/usr/bin/env bash
# filter_plain_names.sh - -F and -N with a plain name (no regular
# expression's character) name that function whole, as uftrace takes them:
# `-F parse` is parse, not parse_all nor reparse; a regular expression may
# match anywhere (`-F parse` before, `-F 'parse$'` now, takes reparse too).
# The same at record time (the hooks, the in-process engine, the ptrace
# engine) and in the views.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c names_hooks "$PROGRAMS/plain_names.c"
gcc -std=gnu11 -g -O0 -o "$WORK/names_plain" "$PROGRAMS/plain_names.c" || fail "cannot compile names_plain"

ONLY_PARSE='== process 1 main
parse
  parse_line'
HIDE_PARSE='== process 1 main
main
  parse_all
    parse_line
  parse_line
  reparse'
ENDS_PARSE='== process 1 main
parse
  parse_line
reparse'

# Record time, under every engine.
for run in runtime:names_hooks patch:names_plain ptrace:names_plain; do
	engine=${run%%:*}
	prog=$WORK/${run#*:}
	record "only_$engine" --engine "$engine" -F parse "$prog"
	grep -qx 'plain_names 3' "$WORK/only_$engine.out" || fail "$engine: the program printed $(cat "$WORK/only_$engine.out")"
	to_json "only_$engine"
	expect_trees "only_$engine" <<<"$ONLY_PARSE"
	record "hide_$engine" --engine "$engine" -N parse "$prog"
	to_json "hide_$engine"
	expect_trees "hide_$engine" <<<"$HIDE_PARSE"
	record "ends_$engine" --engine "$engine" -F 'parse$' "$prog"
	to_json "ends_$engine"
	expect_trees "ends_$engine" <<<"$ENDS_PARSE"
done

# The views: the same names select the same calls from a whole trace.
record all "$WORK/names_hooks"
for view in "only:-F parse:$ONLY_PARSE" "hide:-N parse:$HIDE_PARSE" "ends:-F parse\$:$ENDS_PARSE"; do
	name=view_${view%%:*}
	rest=${view#*:}
	filter=${rest%%:*}
	ct json ${filter%% *} "${filter#* }" -o "$WORK/$name.json" "$WORK/all.trace"
	expect_trees "$name" <<<"${rest#*:}"
done
# report agrees: one row for parse, whose calls are parse's own.
ct report -F parse "$WORK/all.trace" >"$WORK/report.txt"
[ "$(report_calls "$WORK/report.txt" parse)" = 1 ] || fail "report -F parse: $(cat "$WORK/report.txt")"
! grep -qw parse_all "$WORK/report.txt" || fail "report -F parse shows parse_all"
pass
