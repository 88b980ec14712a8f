#!/usr/bin/env bash
# core_fork_exec_many.sh - a program that forks children one after the
# other, each exec'ing another program: every exec'd image joins the trace,
# also those whose fork child is image 10 or more (the child's session
# variable, rewritten in place with a longer image number, once overwrote
# the trace's path: "cannot write trace ::::::", the program unrecorded).
# `calltrace info` counts 13 processes in 25 images, and json's metadata
# 13 processes.  Then bash's subshells, nested one to three deep, each
# exec'ing a program: every exec'd image names its own fork child as its
# parent (bash builds a child's environment before the fork: the session
# variable it hands on was once its parent image's, and the exec'd program
# said it was forked from that image).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup

same_trees_build fib "$PROGRAMS/launch/fib.c"
same_trees_build forkexec "$PROGRAMS/launch/forkexec.c"
for build in hooks plain; do
	name=fe_$build
	# images: the forker, then a fork child and its exec 12 times (2 to 25)
	record "$name" "$WORK/forkexec.$build" 12 "$WORK/fib.plain"
	[ "$RC" = 0 ] || fail "$name: exit status $RC"
	[ "$(grep -c 'fib(10) = 55' "$WORK/$name.out")" = 12 ] || fail "$name: fib did not run 12 times"
	if grep -q 'cannot' "$WORK/$name.err"; then
		fail "$name: $(grep -m1 'cannot' "$WORK/$name.err")"
	fi
	ct info "$WORK/$name.trace" >"$WORK/$name.info"
	execs=$(grep -c "^  image [0-9]*: pid [0-9]*, exec'd from image" "$WORK/$name.info" || true)
	[ "$execs" = 12 ] || fail "$name: $execs exec'd images, expected 12"
	grep -qx "processes:  13 (25 images: an exec starts a new one)" "$WORK/$name.info" ||
		fail "$name: $(grep '^processes:' "$WORK/$name.info"), not 13 processes in 25 images"
	ct json -o "$WORK/$name.json" "$WORK/$name.trace"
	python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["metadata"]["processes"] != 13)' \
		"$WORK/$name.json" || fail "$name: json's metadata.processes is not 13"
	ct report "$WORK/$name.trace" >"$WORK/$name.report"
	calls=$(awk 'NR > 2 && $NF == "fib" { n += $5 } END { print n + 0 }' "$WORK/$name.report")
	[ "$calls" = $((12 * 177)) ] || fail "$name: $calls calls of fib, expected $((12 * 177))"
done

record subshells bash -c '(/bin/true; :); ( (/bin/true; :); :); ( ( (/bin/true; :); :); :)'
[ "$RC" = 0 ] || fail "subshells: exit status $RC"
ct info "$WORK/subshells.trace" >"$WORK/subshells.info"
# image pid how parent: every image whose pid an earlier one had is an
# exec of that one, the latest image of the pid.
awk '/^  image [0-9]+: pid / {
	image = $2 + 0; pid = $4 + 0
	how = $5; parent = $8 + 0
	if (pid in last) {
		if (how != "exec'"'"'d" || parent != last[pid])
			printf "image %d (pid %d): %s from image %d, not exec'"'"'d from image %d\n", image, pid, how, parent, last[pid]
		execs++
	}
	last[pid] = image
} END { if (execs != 3) printf "%d exec'"'"'d images, expected 3\n", execs }' "$WORK/subshells.info" >"$WORK/subshells.bad"
[ ! -s "$WORK/subshells.bad" ] || fail "subshells: $(head -n 1 "$WORK/subshells.bad")"
pass
