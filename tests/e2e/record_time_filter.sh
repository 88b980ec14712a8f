#!/usr/bin/env bash
# record_time_filter.sh - record --time-filter DUR keeps exactly the calls
# that lasted at least DUR and the calls they were made from; a call that
# returns at once is dropped whole, with what it called.  The long calls
# sleep 200 ms, the others return at once, and DUR is 50 ms: far from both,
# so that a loaded machine changes nothing.  Under the hooks and the
# in-process engine (with and without library calls), and live; across a longjmp
# (a long call it leaves is kept, unfinished; a short one is dropped; a
# timer's handler jumping out of hooks) and
# a fork (the child's long call is kept); in two threads; attached to a running loop; a
# crash inside calls shows every
# open call, in the trace and in the report; recursion deeper than the
# calls the filter holds back is written whole.  Bad durations and the
# ptrace engine are refused.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c tf_hooks "$PROGRAMS/time_filter.c"
gcc -std=gnu11 -g -O0 -o "$WORK/tf_plain" "$PROGRAMS/time_filter.c" || fail "cannot compile tf_plain"

KEPT='== process 1 main
main
  nap_alone
    nap
  parent_of_nap
    nap_alone
      nap
  jump_out
    dive_long [unfinished]
      nap
  in_child
== process 2 main
nap_alone
  nap'

# Without the filter, every call is there (the program makes the calls the
# filter drops).
record all "$WORK/tf_hooks"
to_json all
expect_trees all <<'TREES'
== process 1 main
main
  quick [x3]
  nap_alone
    nap
  short_outer
    short_inner
      quick
  parent_of_nap
    quick
    nap_alone
      nap
    quick
  jump_out
    dive_long [unfinished]
      nap
    dive_quick [unfinished]
    quick
  in_child
== process 2 main
nap_alone
  nap
TREES

for run in hooks:tf_hooks patch:tf_plain; do
	engine=${run%%:*}
	prog=$WORK/${run#*:}
	record "$engine" --engine "${engine/hooks/runtime}" --time-filter 50ms "$prog"
	grep -qx 'time_filter done' "$WORK/$engine.out" || fail "$engine: the program printed $(head -c 200 "$WORK/$engine.out")"
	to_json "$engine"
	expect_trees "$engine" <<<"$KEPT"
	expect_replay "$engine"
done

# Library calls too (the other runs leave them out: lib.sh): nanosleep is kept under nap, waitpid (the child naps)
# under in_child; fork, printf, _exit return at once (or never) and go.
CALLTRACE_LIBCALL=1 record patch_lib --engine patch -t 50ms "$WORK/tf_plain"
to_json patch_lib
expect_trees patch_lib <<'TREES'
== process 1 main
main
  nap_alone
    nap
      nanosleep
  parent_of_nap
    nap_alone
      nap
        nanosleep
  jump_out
    dive_long [unfinished]
      nap
        nanosleep
  in_child
    waitpid
== process 2 main
nap_alone
  nap
    nanosleep
TREES

# live -t: the same calls in the graph it prints.
RC=0
"$CALLTRACE" live -t 50ms -o "$WORK/live.graph" --no-duration --no-tid "$WORK/tf_hooks" \
	>/dev/null 2>"$WORK/live.err" || RC=$?
[ "$RC" = 0 ] || fail "live -t: exit $RC: $(head -c 300 "$WORK/live.err")"
[ "$(grep -c '^| *nap_alone() {$' "$WORK/live.graph")" = 3 ] && ! grep -q 'quick\|short_' "$WORK/live.graph" ||
	fail "live -t drew: $(cat "$WORK/live.graph")"

# Threads hold their calls back each on its own.
record threads -t 50ms "$WORK/tf_hooks" threads
to_json threads
expect_trees threads <<'TREES'
== process 1 main
main
  two_threads
== process 1 thread
worker
  nap_alone
    nap
== process 1 thread
worker
  nap_alone
    nap
TREES

# A timer's handler that siglongjmps out of wherever it lands, often a
# hook: main stays whole (a finished root), the spins the jumps leave are
# kept or dropped by how long each ran (not asserted: the machine decides),
# nothing else comes, and nothing is lost.
build_c timer_jumps "$PROGRAMS/timer_jumps.c"
record timer -t 100us "$WORK/timer_jumps"
grep -qx 'jumps 50' "$WORK/timer.out" || fail "timer_jumps printed: $(head -c 200 "$WORK/timer.out")"
to_json timer -D 2
check_tree render "$WORK/timer.json" >"$WORK/timer.trees"
awk 'NR == 1 && $0 != "== process 1 main" { bad = "not one process: " $0 }
	NR == 2 && $0 != "main" { bad = "main is not a finished root: " $0 }
	NR > 2 && !/^  spin \[unfinished\]( \[x[0-9]+\])?$/ { bad = "unexpected: " $0 }
	END { if (NR < 2) bad = "no main"; if (bad) { print bad; exit 1 } }' "$WORK/timer.trees" >"$WORK/timer.why" ||
	fail "timer -t: $(cat "$WORK/timer.why"): $(head -c 400 "$WORK/timer.trees")"
ct info "$WORK/timer.trace" >"$WORK/timer.info"
grep -q '^problems: *0$' "$WORK/timer.info" || fail "timer -t: problems: $(grep -A3 '^problems' "$WORK/timer.info")"

# A crash inside calls: they are open, so they are all written (crash_outer's
# quick call returned at once and is not); the report shows them.
for run in hooks:tf_hooks patch:tf_plain; do
	engine=${run%%:*}
	name=crash_$engine
	record "$name" --engine "${engine/hooks/runtime}" -t 50ms "${WORK}/${run#*:}" crash
	[ "$RC" = 139 ] || fail "$name: exit $RC, not death by SIGSEGV"
	to_json "$name"
	expect_trees "$name" <<'TREES'
== process 1 main
main [unfinished]
  crash_outer [unfinished]
    crash_inner [unfinished]
      nap
TREES
	ct crash -o "$WORK/$name.crash" "$WORK/$name.trace"
	got=$(grep '^  #' "$WORK/$name.crash" | awk '{ print $1, $2 }' | tr '\n' ' ')
	[ "$got" = "#0 crash_inner #1 crash_outer #2 main " ] ||
		fail "$name: the crash report's open calls are '$got'"
done

# Deeper than the stack of calls held back (4096): the calls go through as
# they come, so the deep recursion is written whole; the shallow one,
# returning at once, is dropped.
record deep -t 50ms "$WORK/tf_hooks" deep
ct report "$WORK/deep.trace" >"$WORK/deep.report"
report_calls "$WORK/deep.report" deep_rec >"$WORK/deep.count"
[ "$(cat "$WORK/deep.count")" = 5000 ] || fail "deep: $(cat "$WORK/deep.count") calls of deep_rec, not 5000"

# attach -t: a running loop of a quick call and a nap; only the naps are
# written (the loop was entered before the attach: they are roots).
start_target loop "$WORK/tf_plain" loop
RC=0
"$CALLTRACE" attach -p "$TARGET_PID" -t 50ms --duration 2s -o "$WORK/attach.trace" \
	>/dev/null 2>"$WORK/attach.err" || RC=$?
finish_target loop
[ "$RC" = 0 ] || fail "attach -t: exit $RC: $(head -c 300 "$WORK/attach.err")"
ct report "$WORK/attach.trace" >"$WORK/attach.report"
naps=$(report_calls "$WORK/attach.report" nap_alone)
[ "$naps" -ge 2 ] || fail "attach -t: $naps calls of nap_alone in 2 s: $(cat "$WORK/attach.report")"
grep -qw quick "$WORK/attach.report" && fail "attach -t kept quick: $(cat "$WORK/attach.report")"
ct json -o "$WORK/attach.json" "$WORK/attach.trace"
check_tree render "$WORK/attach.json" | grep -v '^== ' | sed 's/ \[.*//' | sort -u >"$WORK/attach.names"
printf '%s\n' '  nap' nap_alone >"$WORK/attach.expected"
expect_text "functions attach -t kept" "$WORK/attach.expected" "$WORK/attach.names"

# Bad durations, and the ptrace engine, are refused in one line.
for bad in 0 abc 5xs -1ms; do
	rc=0
	"$CALLTRACE" record -o "$WORK/bad.trace" -t "$bad" "$WORK/tf_hooks" >/dev/null 2>"$WORK/bad.err" || rc=$?
	[ "$rc" = 2 ] || fail "-t $bad: exit $rc"
	[ "$(wc -l <"$WORK/bad.err")" = 1 ] && grep -q "bad --time-filter '$bad'" "$WORK/bad.err" ||
		fail "-t $bad said: $(head -c 300 "$WORK/bad.err")"
done
rc=0
"$CALLTRACE" record -o "$WORK/bad.trace" --engine ptrace -t 1ms "$WORK/tf_plain" >/dev/null 2>"$WORK/bad.err" || rc=$?
[ "$rc" = 2 ] && grep -q "not the ptrace engine" "$WORK/bad.err" || fail "ptrace -t: exit $rc: $(cat "$WORK/bad.err")"
pass
