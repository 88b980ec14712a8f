#!/usr/bin/env bash
# reliability_storms.sh - many threads, many processes, many kills, each
# with output and exit status as untraced:
#  - 64 threads making 100,000 calls each at once: every thread (found by
#    the name it gave itself) has exactly its calls; 0 problems, 0
#    unfinished calls;
#  - a process forking 200 children that make a known number of calls
#    each (2,000 + i): 201 processes, each child with exactly its calls,
#    0 problems, 0 unfinished;
#  - 20 children killed with SIGKILL while making calls: 21 processes,
#    0 problems, the parent's calls exact, every killed child's first 1001
#    calls (made before it said it was ready to die) recorded.
# TORTURE=1: 128 threads of 500,000 calls, 1000 children, 100 killed (the
# per-process checks of 1000 children of 10,000 calls outlast 15 minutes).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel threadstorm threadstorm.c
build_rel forkstorm forkstorm.c

threads=$(sized 64 128)
thread_calls=$(sized 100000 500000)
children=$(sized 200 1000)
child_calls=2000
killed=$(sized 20 100)

# -- threads ----------------------------------------------------------------
run_plain threads "$WORK/threadstorm" "$threads" "$thread_calls"
record threads "$WORK/threadstorm" "$threads" "$thread_calls"
same_as_plain threads
info_of "$WORK/threads.trace" "$WORK/threads.info"
expect_complete "$WORK/threads.info" threads
for ((i = 0; i < threads; i++)); do
	tid=$(awk -v n="storm-$i:" '$1 == "thread" && $3 == n { print $2 }' "$WORK/threads.info")
	[ -n "$tid" ] || fail "threads: no thread named storm-$i in the trace"
	ct report --tid "$tid" "$WORK/threads.trace" >"$WORK/thread.report"
	expect_calls "$WORK/thread.report" storm_work $((thread_calls + i)) "thread storm-$i"
	expect_calls "$WORK/thread.report" storm_leaf $((thread_calls + i)) "thread storm-$i"
	expect_calls "$WORK/thread.report" storm_thread 1 "thread storm-$i"
done

# -- forks ------------------------------------------------------------------
# The children's lines come in any order.
run_plain forks "$WORK/forkstorm" "$children" "$child_calls" 0
record forks "$WORK/forkstorm" "$children" "$child_calls" 0
sort -o "$WORK/forks.out" "$WORK/forks.out"
sort -o "$WORK/forks.plain.out" "$WORK/forks.plain.out"
same_as_plain forks
grep -q "^$children children exited: as expected" "$WORK/forks.out" || fail "forks: $(grep exited "$WORK/forks.out")"
info_of "$WORK/forks.trace" "$WORK/forks.info"
expect_complete "$WORK/forks.info" forks
[ "$(info_field "$WORK/forks.info" processes)" = $((children + 1)) ] ||
	fail "forks: $(info_field "$WORK/forks.info" processes) processes in the trace, expected $((children + 1))"
sed -n 's/^  image [0-9]*: pid \([0-9]*\), forked.*/\1/p' "$WORK/forks.info" >"$WORK/forks.pids"
# Child i made child_calls + i calls: the counts of the processes, sorted,
# are exactly child_calls .. child_calls + children - 1.
while read -r pid; do
	ct report --pid "$pid" "$WORK/forks.trace" >"$WORK/child.report"
	work=$(calls_of "$WORK/child.report" fork_work)
	[ "$(calls_of "$WORK/child.report" fork_leaf)" = "$work" ] || fail "forks: child $pid: fork_leaf and fork_work differ"
	[ "$(calls_of "$WORK/child.report" child_main)" = 1 ] || fail "forks: child $pid: child_main not called once"
	echo "$work"
done <"$WORK/forks.pids" | sort -n >"$WORK/forks.counts"
seq "$child_calls" $((child_calls + children - 1)) >"$WORK/forks.expected"
cmp -s "$WORK/forks.counts" "$WORK/forks.expected" ||
	fail "forks: the children's call counts are not $child_calls..$((child_calls + children - 1)) one each: $(diff "$WORK/forks.expected" "$WORK/forks.counts" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
parent=$(sed -n 's/^  image [0-9]*: pid \([0-9]*\), started.*/\1/p' "$WORK/forks.info")
ct report --pid "$parent" "$WORK/forks.trace" >"$WORK/parent.report"
expect_calls "$WORK/parent.report" run_children 1 "forks (the parent)"
expect_calls "$WORK/parent.report" fork_work 0 "forks (the parent)"

# -- kills ------------------------------------------------------------------
run_plain kills "$WORK/forkstorm" 0 0 "$killed"
record kills "$WORK/forkstorm" 0 0 "$killed"
same_as_plain kills
grep -q "^$killed children killed: as expected" "$WORK/kills.out" || fail "kills: $(grep killed "$WORK/kills.out")"
info_of "$WORK/kills.trace" "$WORK/kills.info"
[ "$(info_field "$WORK/kills.info" problems)" = 0 ] ||
	fail "kills: $(info_field "$WORK/kills.info" problems) problems: $(grep -A2 '^problems' "$WORK/kills.info" | tr '\n' ' ')"
[ "$(info_field "$WORK/kills.info" processes)" = $((killed + 1)) ] ||
	fail "kills: $(info_field "$WORK/kills.info" processes) processes in the trace, expected $((killed + 1))"
parent=$(sed -n 's/^  image [0-9]*: pid \([0-9]*\), started.*/\1/p' "$WORK/kills.info")
ct report --pid "$parent" "$WORK/kills.trace" >"$WORK/parent.report"
expect_calls "$WORK/parent.report" run_killed 1 "kills (the parent)"
expect_calls "$WORK/parent.report" main 1 "kills (the parent)"
min=
for pid in $(sed -n 's/^  image [0-9]*: pid \([0-9]*\), forked.*/\1/p' "$WORK/kills.info"); do
	ct report --pid "$pid" "$WORK/kills.trace" >"$WORK/killed.report"
	work=$(calls_of "$WORK/killed.report" fork_work)
	[ "$work" -ge 1001 ] || fail "kills: child $pid was killed after 1001 calls, $work are recorded"
	[ -n "$min" ] && [ "$min" -le "$work" ] || min=$work
done
echo "$threads threads x $thread_calls calls; $children children ($child_calls + i calls); $killed killed (at least $min calls each recorded)"
pass
