#!/usr/bin/env bash
# core_json_output.sh - CALLTRACE_OUTPUT=NAME.json (or CALLTRACE_FORMAT=json):
# the JSON call tree, with every call of every process, is in NAME.json when
# the program's exit status is (the last process out writes it, also a fork
# child that ends after its parent, by exit() or _exit(), and a process that
# crashes); the binary trace stays in NAME.json.trace and gives the same
# trees; CALLTRACE_PRETTY_JSON=0 gives one line; JSON to a non-regular file
# (/dev/stderr) leaves no trace behind; /dev/null records nothing and says
# nothing; a directory is refused in one line; a tool that cannot be found
# is said in one line naming the trace, which is kept.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c forks "$PROGRAMS/forks.c"
build_c outlive "$PROGRAMS/outlive.c"
build_c crash "$PROGRAMS/crash.c"

traced() { # OUTPUT PROGRAM ARG...: runs PROGRAM preloaded, writing OUTPUT
	local out=$1
	shift
	CALLTRACE_OUTPUT=$out LD_PRELOAD=$RUNTIME "$@"
}

# Three processes; the children end by exit() and _exit().
run_plain fk "$WORK/forks" fork "$WORK/plain.pids"
RC=0
traced "$WORK/fk.json" "$WORK/forks" fork "$WORK/fk.pids" >"$WORK/fk.out" 2>"$WORK/fk.err" || RC=$?
[ "$RC" = "$PLAIN_RC" ] || fail "forks: exit $RC, untraced $PLAIN_RC"
cmp -s "$WORK/fk.out" "$WORK/fk.plain.out" || fail "forks: stdout differs from the untraced one"
[ ! -s "$WORK/fk.err" ] || fail "forks: said $(head -c 300 "$WORK/fk.err")"
check_tree schema "$WORK/fk.json" --command "$WORK/forks fork $WORK/fk.pids" --total --files
expect_trees fk <<'TREES'
== process 1 main
main
  fork_then_exit
    note_child
    reap
  fork_then_quick_exit
    note_child
    reap
== process 2 main
child_exit_path
  child_leaf
  child_mid
    child_leaf
== process 3 main
child_quick_path
  quick_leaf [x50]
  quick_last
TREES
expect_meta fk processes 3
expect_meta fk total_calls 63
# The binary trace beside it holds the same calls.
[ -s "$WORK/fk.json.trace" ] || fail "no binary trace beside the JSON"
ct json -o "$WORK/again.json" "$WORK/fk.json.trace"
check_tree render "$WORK/again.json" >"$WORK/again.got"
expect_text "the trees of the binary trace" "$WORK/fk.got" "$WORK/again.got"
# Every process's exit status, the _exit() child's too.
ct info "$WORK/fk.json.trace" >"$WORK/fk.info"
[ "$(grep -c '^  image [0-9]*: .*, exit status 0$' "$WORK/fk.info")" = 3 ] ||
	fail "info does not give 3 exit statuses: $(grep '^  image' "$WORK/fk.info")"

# A child that ends after its parent writes the JSON, whole.
for how in exit _exit; do
	pid=$(traced "$WORK/ol$how.json" "$WORK/outlive" "$how")
	for ((i = 0; i < 6000; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	check_tree render "$WORK/ol$how.json" >"$WORK/ol$how.got"
	printf '== process 1 main\nmain\n  parent_work\n== process 2 main\nchild_work [x2]\n  child_leaf\n' \
		>"$WORK/ol.expected"
	expect_text "trees of a child ending after its parent by $how()" "$WORK/ol.expected" "$WORK/ol$how.got"
done

# CALLTRACE_FORMAT=json with any name; compact when asked.
CALLTRACE_FORMAT=json CALLTRACE_PRETTY_JSON=0 traced "$WORK/compact.out" "$WORK/crash" exit3 \
	>/dev/null || [ $? = 3 ] || fail "compact: exit status not 3"
[ "$(wc -l <"$WORK/compact.out")" -le 1 ] || fail "CALLTRACE_PRETTY_JSON=0: $(wc -l <"$WORK/compact.out") lines"
[ "$(python3 "$ROOT/tests/e2e/check_tree.py" count "$WORK/compact.out")" = 3 ] ||
	fail "compact: not the 3 calls of crash exit3"

# JSON to a non-regular file: the trace is a temporary file, removed.
# /dev/stderr is a link to the descriptor, here a regular file: no trace
# is left beside the name, in /dev.
mkdir "$WORK/tmp"
ls -A /dev >"$WORK/dev.before"
rc=0
TMPDIR=$WORK/tmp CALLTRACE_FORMAT=json traced /dev/stderr "$WORK/crash" exit3 >/dev/null \
	2>"$WORK/stderr.json" || rc=$?
ls -A /dev >"$WORK/dev.after"
comm -13 "$WORK/dev.before" "$WORK/dev.after" | grep -q trace &&
	fail "/dev/stderr: a trace was left in /dev: $(comm -13 "$WORK/dev.before" "$WORK/dev.after" | tr '\n' ' ')"
[ "$rc" = 3 ] || fail "/dev/stderr: exit $rc, not 3"
[ "$(python3 "$ROOT/tests/e2e/check_tree.py" count "$WORK/stderr.json")" = 3 ] ||
	fail "/dev/stderr: not the 3 calls: $(head -c 300 "$WORK/stderr.json")"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "/dev/stderr: left $(ls "$WORK/tmp")"

# A crash: the JSON is written all the same, the open calls unfinished.
rc=0
traced "$WORK/crash.json" "$WORK/crash" segv >/dev/null 2>"$WORK/crash.err" || rc=$?
[ "$rc" = 139 ] || fail "segv: exit $rc, not 139"
check_tree render "$WORK/crash.json" >"$WORK/crash.got"
printf '== process 1 main\nmain [unfinished]\n  prelude\n    prelude_leaf\n  crash_outer [unfinished]\n    crash_inner [unfinished]\n' >"$WORK/crash.expected"
expect_text "trees of the crash" "$WORK/crash.expected" "$WORK/crash.got"

# /dev/null: nothing recorded, nothing said.
rc=0
traced /dev/null "$WORK/crash" exit3 >/dev/null 2>"$WORK/null.err" || rc=$?
[ "$rc" = 3 ] && [ ! -s "$WORK/null.err" ] || fail "/dev/null: exit $rc, said $(cat "$WORK/null.err")"

# A directory: one line, and the program runs.
rc=0
traced "$WORK/tmp" "$WORK/crash" exit3 >"$WORK/dir.out" 2>"$WORK/dir.err" || rc=$?
[ "$rc" = 3 ] || fail "a directory as output: exit $rc"
[ "$(wc -l <"$WORK/dir.err")" = 1 ] && grep -q "^calltrace: CALLTRACE_OUTPUT=$WORK/tmp is a directory" "$WORK/dir.err" ||
	fail "a directory as output: said $(cat "$WORK/dir.err")"

# No tool: one line naming the trace, which is kept.
rc=0
CALLTRACE_TOOL=$WORK/none traced "$WORK/notool.json" "$WORK/crash" exit3 >/dev/null 2>"$WORK/notool.err" || rc=$?
[ "$rc" = 3 ] || fail "no tool: exit $rc"
[ ! -e "$WORK/notool.json" ] || fail "no tool: a JSON file was written"
grep -q "^calltrace: cannot write $WORK/notool.json: .*CALLTRACE_TOOL.*the calls are in $WORK/notool.json.trace" \
	"$WORK/notool.err" || fail "no tool: said $(cat "$WORK/notool.err")"
ct json -o "$WORK/notool.json" "$WORK/notool.json.trace"
[ "$(python3 "$ROOT/tests/e2e/check_tree.py" count "$WORK/notool.json")" = 3 ] ||
	fail "no tool: the kept trace does not hold the 3 calls"
pass
