#!/usr/bin/env bash
# core_live.sh - `calltrace live PROGRAM` (and `calltrace PROGRAM`) runs the
# program, lets its output through, exits with its status and shows on
# stderr (or -o FILE) the function graph of exactly its calls; -F limits the
# graph; the temporary trace is removed, or kept with -k; no program, a
# program that cannot run, and a bad option get one line.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c tree "$PROGRAMS/tree.c"
build_c crash "$PROGRAMS/crash.c"
mkdir "$WORK/tmp"
export TMPDIR=$WORK/tmp

graph_of() { # FILE: the graph lines of FILE, without the header and columns
	grep -v '^#' "$1" | sed -n 's/^[^|]*|/|/p'
}

cat >"$WORK/tree.expected" <<'GRAPH'
| main() {
|   parse_input() {
|     read_token();
|     read_token();
|     read_token();
|   } /* parse_input */
|   compute() {
|     slow_step() {
|       slow_inner();
|     } /* slow_step */
|     fast_step() {
|       fast_inner();
|       fast_inner();
|     } /* fast_step */
|   } /* compute */
|   emit_output() {
|     format_line();
|     format_line();
|   } /* emit_output */
| } /* main */
GRAPH
run_plain tree "$WORK/tree"
for form in "live --no-duration --no-tid" ""; do
	RC=0
	# shellcheck disable=SC2086
	"$CALLTRACE" $form "$WORK/tree" >"$WORK/tree.out" 2>"$WORK/tree.err" || RC=$?
	[ "$RC" = 0 ] || fail "calltrace $form tree: exit $RC: $(head -c 300 "$WORK/tree.err")"
	cmp -s "$WORK/tree.out" "$WORK/tree.plain.out" || fail "calltrace $form tree: the program's output changed"
	graph_of "$WORK/tree.err" >"$WORK/tree.got"
	expect_text "the graph of calltrace $form tree" "$WORK/tree.expected" "$WORK/tree.got"
done
[ -z "$(ls -A "$WORK/tmp")" ] || fail "the temporary trace was left: $(ls "$WORK/tmp")"

# The program's exit status, its stderr, and the graph after it.
RC=0
"$CALLTRACE" live --no-duration --no-tid "$WORK/crash" exit3 >"$WORK/exit3.out" 2>"$WORK/exit3.err" || RC=$?
[ "$RC" = 3 ] || fail "crash exit3: exit $RC, not 3"
[ "$(cat "$WORK/exit3.out")" = "prelude: 42" ] || fail "crash exit3: printed $(cat "$WORK/exit3.out")"
printf '| main() {\n|   prelude() {\n|     prelude_leaf();\n|   } /* prelude */\n| } /* main */\n' >"$WORK/exit3.expected"
graph_of "$WORK/exit3.err" >"$WORK/exit3.got"
expect_text "the graph of crash exit3" "$WORK/exit3.expected" "$WORK/exit3.got"
RC=0
"$CALLTRACE" live "$WORK/crash" segv >/dev/null 2>"$WORK/segv.err" || RC=$?
[ "$RC" = 139 ] || fail "crash segv: exit $RC, not 139"
grep -q "crash_inner" "$WORK/segv.err" || fail "crash segv: no crash_inner in the graph"

# -o FILE, -F, -k.
RC=0
"$CALLTRACE" live -k -o "$WORK/compute.graph" -F compute --no-duration --no-tid "$WORK/tree" \
	>/dev/null 2>"$WORK/compute.err" || RC=$?
[ "$RC" = 0 ] || fail "-o -F -k: exit $RC"
sed -n '7,15p' "$WORK/tree.expected" | sed 's/^|   /| /' >"$WORK/compute.expected"
graph_of "$WORK/compute.graph" >"$WORK/compute.got"
expect_text "the graph of -F compute" "$WORK/compute.expected" "$WORK/compute.got"
kept=$(sed -n 's/^calltrace: trace kept in //p' "$WORK/compute.err")
[ -n "$kept" ] && [ -s "$kept" ] || fail "-k: no trace kept: $(cat "$WORK/compute.err")"
[ "$(grep -vc '^calltrace: trace kept in ' "$WORK/compute.err")" = 0 ] ||
	fail "-o: something else on stderr: $(cat "$WORK/compute.err")"

# Refusals: one line, non-zero.
refused() { # EXPECTED_RC PATTERN ARG...
	local want=$1 pattern=$2 rc=0
	shift 2
	"$CALLTRACE" "$@" >/dev/null 2>"$WORK/refused.err" || rc=$?
	[ "$rc" = "$want" ] || fail "calltrace $*: exit $rc, not $want"
	[ "$(wc -l <"$WORK/refused.err")" = 1 ] && grep -q "$pattern" "$WORK/refused.err" ||
		fail "calltrace $*: said $(cat "$WORK/refused.err")"
}
refused 2 "live: no program given" live
refused 127 "cannot run" live "$WORK/none"
refused 2 "unrecognized option\|unknown option\|--bogus" live --bogus "$WORK/tree"
refused 2 "unknown command 'nosuchcommand'" nosuchcommand
pass
