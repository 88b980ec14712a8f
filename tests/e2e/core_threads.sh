#!/usr/bin/env bash
# core_threads.sh - four threads running at once, each with its own call
# chain: one exact tree per thread with the known counts, the threads' names,
# tids and pid, file:line of every call; output unchanged.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c threads "$PROGRAMS/threads.c"
run_plain threads "$WORK/threads"
record threads "$WORK/threads"
same_as_plain threads
to_json threads
check_tree schema "$WORK/threads.json" --command "$WORK/threads" --total --files
expect_trees threads <<'TREES'
== process 1 main
main
  spawn_workers
  join_workers
  report_totals
== process 1 thread
alpha_thread
  begin
  alpha_work [x7]
== process 1 thread
beta_thread
  begin
  beta_work [x11]
    beta_leaf
== process 1 thread
delta_thread
  begin
  delta_work
    delta_mid
      delta_deep
        delta_leaf
== process 1 thread
gamma_thread
  begin
  gamma_work [x3]
    gamma_mid
      gamma_leaf [x2]
TREES
check_tree lines "$WORK/threads.json" "$WORK/threads"
expect_replay threads
expect_meta threads processes 1
expect_meta threads threads 5

# Each worker has its own tid, in the main thread's process, and the name it
# gave itself.
pid=$(tree_field threads main 2)
tid=$(tree_field threads main 3)
[ "$pid" = "$tid" ] || fail "main thread: tid $tid is not the pid $pid"
check_tree trees "$WORK/threads.json" >"$WORK/trees"
for w in alpha beta gamma delta; do
	read -r key wpid wtid _ _ name < <(grep " ${w}_thread " "$WORK/trees") || true
	[ "$wpid" = "$pid" ] || fail "$w: pid $wpid, expected $pid"
	[ "$key" = "$wtid" ] || fail "$w: key $key is not its tid $wtid"
	[ "$wtid" != "$pid" ] || fail "$w: has the main thread's tid"
	[ "$name" = "$w" ] || fail "$w: thread_name is '$name'"
done
[ "$(cut -d' ' -f3 "$WORK/trees" | sort -u | wc -l)" = 5 ] || fail "the five threads do not have five tids"
pass
