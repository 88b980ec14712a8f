#!/usr/bin/env bash
# core_vfork_exec.sh - a vfork child that execs another instrumented program
# (traced under the child's pid, in the same trace), and a vfork child whose
# exec fails and that _exits: the parent's tree is unaffected by either.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c forks "$PROGRAMS/forks.c"
build_c exec_target "$PROGRAMS/exec_target.c"
run_plain vf "$WORK/forks" vfork "$WORK/plain.pids" "$WORK/exec_target"
record vf "$WORK/forks" vfork "$WORK/vf.pids" "$WORK/exec_target"
same_as_plain vf
to_json vf
check_tree schema "$WORK/vf.json" --total --files
expect_trees vf <<'TREES'
== process 1 main
main
  vfork_then_exec
    note_child
    reap
  vfork_exec_fails
    note_child
    reap
== process 2 main
main
  target_start
    target_leaf [x2]
  target_finish
TREES

# The exec'd program runs as the vfork child: its first (and only) tree is
# keyed by the child's pid; the failed child left no tree.
exec_child=$(awk '$1 == "vfork_exec_child" { print $2 }' "$WORK/vf.pids")
failed_child=$(awk '$1 == "vfork_failed_child" { print $2 }' "$WORK/vf.pids")
check_tree trees "$WORK/vf.json" >"$WORK/trees"
read -r key _ tid _ < <(awk -v p="$exec_child" '$2 == p' "$WORK/trees") || true
[ "$key" = "$exec_child" ] && [ "$tid" = "$exec_child" ] ||
	fail "exec'd child: tree '$key' tid '$tid', expected $exec_child"
! awk '{ print $2 }' "$WORK/trees" | grep -qx "$failed_child" || fail "the failed vfork child has a tree"
parent=$(awk -v p="$exec_child" '$2 != p { print $1 }' "$WORK/trees")
check_tree lines "$WORK/vf.json" "$WORK/forks" --key "$parent"
check_tree lines "$WORK/vf.json" "$WORK/exec_target" --key "$exec_child"
expect_replay vf
pass
