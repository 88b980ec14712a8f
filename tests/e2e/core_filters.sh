#!/usr/bin/env bash
# core_filters.sh - the reading commands' filters change the tree exactly:
# -F (only matching subtrees), -N (hide matching calls, keep their callees),
# -D (levels), -t (hide short calls), --tid and --pid; replay shows the same
# functions as the json.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c tree "$PROGRAMS/tree.c"
build_c threads "$PROGRAMS/threads.c"
build_c forks "$PROGRAMS/forks.c"
record tree "$WORK/tree"
[ "$RC" = 0 ] || fail "record tree exited $RC"

# filtered NAME OPTION...: $WORK/NAME.json from tree.trace (or $TRACE)
# with the options, and the replay with the same options shows the same calls.
filtered() {
	local name=$1 trace=$WORK/${TRACE:-tree}.trace
	shift
	ct json "$@" -o "$WORK/$name.json" "$trace"
	check_tree schema "$WORK/$name.json"
	ct replay "$@" "$trace" >"$WORK/$name.replay"
	check_tree replay-order "$WORK/$name.replay" "$WORK/$name.json"
}

filtered all
expect_trees all <<'TREES'
== process 1 main
main
  parse_input
    read_token [x3]
  compute
    slow_step
      slow_inner
    fast_step
      fast_inner [x2]
  emit_output
    format_line [x2]
TREES

filtered only_compute -F '^compute$'
expect_trees only_compute <<'TREES'
== process 1 main
compute
  slow_step
    slow_inner
  fast_step
    fast_inner [x2]
TREES

filtered only_two --filter '^(read_token|fast_step)$'
expect_trees only_two <<'TREES'
== process 1 main
read_token [x3]
fast_step
  fast_inner [x2]
TREES

filtered hidden -N '^(compute|format_line)$'
expect_trees hidden <<'TREES'
== process 1 main
main
  parse_input
    read_token [x3]
  slow_step
    slow_inner
  fast_step
    fast_inner [x2]
  emit_output
TREES

filtered depth2 -D 2
expect_trees depth2 <<'TREES'
== process 1 main
main
  parse_input
  compute
  emit_output
TREES

filtered depth1 --depth 1
expect_trees depth1 <<'TREES'
== process 1 main
main
TREES

filtered compute_depth2 -F '^compute$' -D 2
expect_trees compute_depth2 <<'TREES'
== process 1 main
compute
  slow_step
  fast_step
TREES

# -t on tree's calls with durations the test chooses (gen_trace): slow_step
# lasts 100 ms, and it and its callers 50 ms or more; every other call
# 1 us, even where a busy machine would stop the program for 50 ms.
gcc -g -O0 -no-pie "$PROGRAMS/tree.c" -o "$WORK/tree.nopie" || fail "cannot compile tree -no-pie"
gen_trace timed "$WORK/tree.nopie" <<'SCRIPT'
0 thread 100
0 enter main
1000 enter parse_input
2000 enter read_token
3000 exit
4000 enter read_token
5000 exit
6000 enter read_token
7000 exit
8000 exit
9000 enter compute
10000 enter slow_step
100010000 enter slow_inner
100011000 exit
100012000 exit
100013000 enter fast_step
100014000 enter fast_inner
100015000 exit
100016000 enter fast_inner
100017000 exit
100018000 exit
100019000 exit
100020000 enter emit_output
100021000 enter format_line
100022000 exit
100023000 enter format_line
100024000 exit
100025000 exit
100026000 exit
100027000 end 0
SCRIPT
TRACE=timed filtered timed_all
expect_trees timed_all <<'TREES'
== process 1 main
main
  parse_input
    read_token [x3]
  compute
    slow_step
      slow_inner
    fast_step
      fast_inner [x2]
  emit_output
    format_line [x2]
TREES
TRACE=timed filtered slow -t 50ms
expect_trees slow <<'TREES'
== process 1 main
main
  compute
    slow_step
TREES

# --tid: only the threads named.
record threads "$WORK/threads"
to_json threads
beta=$(tree_field threads beta_thread 3)
delta=$(tree_field threads delta_thread 3)
ct json --tid "$beta" -o "$WORK/beta.json" "$WORK/threads.trace"
expect_trees beta <<'TREES'
== process 1 thread
beta_thread
  begin
  beta_work [x11]
    beta_leaf
TREES
ct json --tid "$beta,$delta" -o "$WORK/two.json" "$WORK/threads.trace"
expect_trees two <<'TREES'
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
TREES

# --pid: only the processes named.
record fk "$WORK/forks" fork "$WORK/fk.pids"
child=$(awk '$1 == "exit_child" { print $2 }' "$WORK/fk.pids")
ct json --pid "$child" -o "$WORK/child.json" "$WORK/fk.trace"
expect_trees child <<'TREES'
== process 1 main
child_exit_path
  child_leaf
  child_mid
    child_leaf
TREES
[ "$(tree_field child child_exit_path 2)" = "$child" ] || fail "--pid $child shows another process"
ct replay --pid "$child" "$WORK/fk.trace" >"$WORK/child.replay"
check_tree replay-order "$WORK/child.replay" "$WORK/child.json"
ct replay --tid "$beta,$delta" "$WORK/threads.trace" >"$WORK/two.replay"
check_tree replay-order "$WORK/two.replay" "$WORK/two.json"
pass
