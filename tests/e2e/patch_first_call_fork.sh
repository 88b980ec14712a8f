#!/usr/bin/env bash
# patch_first_call_fork.sh - fork and exec while other threads make first
# calls: 4 threads call 4 fresh functions 1000 times each while the main
# thread forks 5 children (each calls a function the parent does not) and
# vforks one that execs the program again; every process's calls exact,
# every child ends well, the parent patches the first child's first call
# before its next fork, and the new image marks and patches its own first
# calls.
source "$(dirname "$0")/lib.sh"
setup

gcc -std=gnu11 -g -O0 -pthread -o "$WORK/first_call" "$PROGRAMS/patch/first_call.c" ||
	fail "cannot compile first_call"

for round in 1 2 3; do
	run_plain fork "$WORK/first_call" fork
	record fork --engine patch --no-cache -v "$WORK/first_call" fork
	same_as_plain fork
	grep -qx "fork 6 3782" "$WORK/fork.out" || fail "round $round: printed $(cat "$WORK/fork.out")"
	counts fork >"$WORK/fork.counts"
	expect_text "round $round: calls" - "$WORK/fork.counts" <<'COUNTS'
exec_work 3
execed 1
forks 1
fresh_0 4000
fresh_1 4000
fresh_2 4000
fresh_3 4000
fresh_caller 4
in_child 5
main 2
COUNTS
	# The parent's first calls: main, forks, fresh_caller, fresh_0..3; and
	# in_child, the first child's first call, patched in the parent before
	# its second fork (the later children find it patched).  The new
	# image's: execed, exec_work; main and what else ran in the session's
	# earlier processes (how much depends on when the threads ran) are
	# patched at its start.
	ahead="more patched ahead of their first calls: they ran in an earlier process (of this recording or an earlier one), or in a child"
	grep -qx "calltrace: in-process engine: [0-9]* functions marked, 7 ran; 1 $ahead" "$WORK/fork.err" &&
		grep -qx "calltrace: in-process engine: [0-9]* functions marked, 2 ran; [1-9][0-9]* $ahead" "$WORK/fork.err" ||
		fail "round $round: $(grep ' ran' "$WORK/fork.err")"
done
pass
