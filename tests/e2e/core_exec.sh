#!/usr/bin/env bash
# core_exec.sh - a program that execs another instrumented program from
# inside a call chain: the old image's open calls are unfinished, tracing goes
# on in the new image under the same pid with the tree key "<tid>.2", and the
# new program's exit code comes back.  record's closing line counts one
# process and one thread (the exec goes on in them), not two of each.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c exec "$PROGRAMS/exec.c"
build_c exec_target "$PROGRAMS/exec_target.c"
run_plain ex "$WORK/exec" "$WORK/exec_target" 7
[ "$PLAIN_RC" = 7 ] || fail "untraced run exited $PLAIN_RC, not 7"
record ex "$WORK/exec" "$WORK/exec_target" 7
same_as_plain ex
grep -q "^calltrace: 1 process, 1 thread, " "$WORK/ex.err" ||
	fail "record's closing line: $(grep -v recording "$WORK/ex.err")"
to_json ex
check_tree schema "$WORK/ex.json" --command "$WORK/exec $WORK/exec_target 7" --total --files
expect_trees ex <<'TREES'
== process 1 main
main [unfinished]
  exec_prepare
    exec_leaf
  exec_now [unfinished]
== process 1 image 2 main
main
  target_start
    target_leaf [x2]
  target_finish
TREES

check_tree trees "$WORK/ex.json" >"$WORK/trees"
pid=$(awk '$1 !~ /\./ { print $2 }' "$WORK/trees")
[ "$(cut -d' ' -f1 "$WORK/trees" | sort | tr '\n' ' ')" = "$pid $pid.2 " ] ||
	fail "tree keys are $(cut -d' ' -f1 "$WORK/trees" | tr '\n' ' '), expected $pid and $pid.2"
[ "$(cut -d' ' -f2 "$WORK/trees" | sort -u)" = "$pid" ] || fail "the two images have different pids"
[ "$(cut -d' ' -f4 "$WORK/trees" | sort -u | wc -l)" = 2 ] || fail "the two images have the same image id"
check_tree lines "$WORK/ex.json" "$WORK/exec" --key "$pid"
check_tree lines "$WORK/ex.json" "$WORK/exec_target" --key "$pid.2"
expect_replay ex
pass
