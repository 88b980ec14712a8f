#!/usr/bin/env bash
# dynamic_same_trees.sh - the dynamic engine records the same call trees as
# -finstrument-functions: each test program is built twice, with the hooks
# (recorded by the runtime) and without (recorded by an engine that needs no
# recompiling: the one `record` chooses by itself, or the ptrace engine with
# --dynamic), and the rendered trees of every process
# and thread must be equal; the uninstrumented run's output and exit code are
# those of an untraced run.  Covers a plain call tree, four threads, fork,
# vfork + exec, exec from inside a call chain, signal handlers, longjmp and
# siglongjmp, and C++ (constructors, templates, an exception unwinding
# through traced frames).
source "$(dirname "$0")/lib.sh"
setup
need_cmd g++
INSTRUMENTED=(-g -O0 -finstrument-functions -Wall -Wextra)
PLAIN=(-g -O0 -Wall -Wextra)

# both NAME SOURCE [FLAG...]: $WORK/NAME.hooks and $WORK/NAME.plain binaries.
both() {
	local name=$1 src=$2 cc=gcc std=-std=gnu11
	shift 2
	case $src in *.cpp) cc=g++ std=-std=c++17 ;; esac
	$cc $std "${INSTRUMENTED[@]}" -o "$WORK/$name.hooks" "$src" "$@" -pthread ||
		fail "cannot compile $name with hooks"
	$cc $std "${PLAIN[@]}" -o "$WORK/$name.plain" "$src" "$@" -pthread ||
		fail "cannot compile $name"
}

# compare NAME MODE [ARG...]: records both builds (the plain one with MODE:
# "auto" or "--dynamic"), checks the plain run against an untraced one and
# the two sets of trees against each other.  "@" in an argument becomes
# "hooks" or "plain".
compare() {
	local name=$1 mode=$2 args_h=() args_p=() a
	shift 2
	for a in "$@"; do
		args_h+=("${a//@/hooks}")
		args_p+=("${a//@/plain}")
	done
	record "${name}_h" "$WORK/$name.hooks" "${args_h[@]}"
	run_plain "${name}_p" "$WORK/$name.plain" "${args_p[@]}"
	if [ "$mode" = auto ]; then
		record "${name}_p" "$WORK/$name.plain" "${args_p[@]}"
		grep -Eq "(dynamic|in-process) engine" "$WORK/${name}_p.err" ||
			fail "$name: the uninstrumented program was not given to an engine that needs no recompiling"
	else
		record "${name}_p" --dynamic "$WORK/$name.plain" "${args_p[@]}"
	fi
	same_as_plain "${name}_p"
	to_json "${name}_h"
	to_json "${name}_p"
	check_tree render "$WORK/${name}_h.json" >"$WORK/${name}_h.trees"
	check_tree render "$WORK/${name}_p.json" >"$WORK/${name}_p.trees"
	[ -s "$WORK/${name}_h.trees" ] || fail "$name: no trees recorded with the hooks"
	expect_text "$name: the dynamic engine's trees" "$WORK/${name}_h.trees" "$WORK/${name}_p.trees"
}

both tree "$PROGRAMS/tree.c"
compare tree auto
both threads "$PROGRAMS/threads.c"
compare threads --dynamic
both forks "$PROGRAMS/forks.c"
both exec_target "$PROGRAMS/exec_target.c"
compare forks --dynamic fork "$WORK/@.fork.pids"
compare forks --dynamic vfork "$WORK/@.vfork.pids" "$WORK/exec_target.@"
both exec "$PROGRAMS/exec.c"
compare exec auto "$WORK/exec_target.@" 7
# A million errno rounds cost 20 s under ptrace: a thousand tell the same.
sed 's/^#define ERRNO_ROUNDS .*/#define ERRNO_ROUNDS 1000/' "$PROGRAMS/signals.c" >"$WORK/signals.c"
both signals "$WORK/signals.c"
compare signals --dynamic
both jumps "$PROGRAMS/jumps.c"
compare jumps --dynamic
both cxx "$PROGRAMS/cxx.cpp"
compare cxx --dynamic
pass
