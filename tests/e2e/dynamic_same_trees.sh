#!/usr/bin/env bash
# dynamic_same_trees.sh - the ptrace engine records the same call trees as
# -finstrument-functions: each test program is built twice, with the hooks
# (recorded by the runtime) and without (recorded by the ptrace engine,
# --dynamic), and the rendered trees of every process and thread must be
# equal; the uninstrumented run's output and exit code are those of an
# untraced run.  Covers a plain call tree, four threads, fork, vfork + exec,
# exec from inside a call chain, signal handlers, longjmp and siglongjmp,
# and C++ (constructors, templates, an exception unwinding through traced
# frames).  patch_same_trees.sh does the same for the in-process engine.
source "$(dirname "$0")/lib.sh"
setup
need_cmd g++
ENGINE_OPTS=(--dynamic)

same_trees_build tree "$PROGRAMS/tree.c"
same_trees tree chosen
same_trees_build threads "$PROGRAMS/threads.c"
same_trees threads chosen
same_trees_build forks "$PROGRAMS/forks.c"
same_trees_build exec_target "$PROGRAMS/exec_target.c"
same_trees forks chosen fork "$WORK/@.fork.pids"
same_trees forks chosen vfork "$WORK/@.vfork.pids" "$WORK/exec_target.@"
same_trees_build exec "$PROGRAMS/exec.c"
same_trees exec chosen "$WORK/exec_target.@" 7
# A million errno rounds cost 20 s under ptrace: a thousand tell the same.
sed 's/^#define ERRNO_ROUNDS .*/#define ERRNO_ROUNDS 1000/' "$PROGRAMS/signals.c" >"$WORK/signals.c"
same_trees_build signals "$WORK/signals.c"
same_trees signals chosen
same_trees_build jumps "$PROGRAMS/jumps.c"
same_trees jumps chosen
same_trees_build cxx "$PROGRAMS/cxx.cpp"
same_trees cxx chosen
pass
