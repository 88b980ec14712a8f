#!/usr/bin/env bash
# core_fork.sh - fork children that end with exit() and with _exit() right
# after their calls: each child's calls are in the trace, under the child's
# pid, complete (_exit loses nothing); the parent's tree is unaffected.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c forks "$PROGRAMS/forks.c"
run_plain fk "$WORK/forks" fork "$WORK/plain.pids"
record fk "$WORK/forks" fork "$WORK/fk.pids"
same_as_plain fk
to_json fk
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
check_tree lines "$WORK/fk.json" "$WORK/forks"
expect_replay fk
expect_meta fk processes 3

# The children's trees are under the pids that fork() returned.
child_pid() {
	awk -v r="$1" '$1 == r { print $2 }' "$WORK/fk.pids"
}
for pair in exit_child:child_exit_path quick_exit_child:child_quick_path; do
	want=$(child_pid "${pair%%:*}")
	got=$(tree_field fk "${pair#*:}" 1)
	[ "$got" = "$want" ] || fail "${pair#*:} is in tree $got, the child's pid is $want"
	[ "$(tree_field fk "${pair#*:}" 2)" = "$want" ] || fail "${pair#*:}: pid is not $want"
done
[ "$(tree_field fk main 2)" != "$(child_pid exit_child)" ] || fail "parent and child share a pid"
pass
