#!/usr/bin/env bash
# patch_same_trees.sh - the in-process engine records the same call trees as
# -finstrument-functions: each test program is built twice, with the hooks
# (recorded by the runtime) and without (recorded by the in-process engine,
# which record picks by itself for them, or --engine patch), and the
# rendered trees of every process and thread must be equal; the
# uninstrumented run's output and exit code are those of an untraced run.
# Covers a plain call tree, four threads, fork, vfork + exec, exec from
# inside a call chain, signal handlers (a million errno rounds), longjmp and
# siglongjmp, and C++ (an exception unwinding through patched frames).
source "$(dirname "$0")/lib.sh"
setup
need_cmd g++
ENGINE_OPTS=(--engine patch)
ENGINE_SAYS="in-process engine"

same_trees_build tree "$PROGRAMS/tree.c"
same_trees tree auto
same_trees_build threads "$PROGRAMS/threads.c"
same_trees threads chosen
same_trees_build forks "$PROGRAMS/forks.c"
same_trees_build exec_target "$PROGRAMS/exec_target.c"
same_trees forks chosen fork "$WORK/@.fork.pids"
same_trees forks chosen vfork "$WORK/@.vfork.pids" "$WORK/exec_target.@"
same_trees_build exec "$PROGRAMS/exec.c"
same_trees exec auto "$WORK/exec_target.@" 7
same_trees_build signals "$PROGRAMS/signals.c"
same_trees signals chosen
same_trees_build jumps "$PROGRAMS/jumps.c"
same_trees jumps chosen
same_trees_build cxx "$PROGRAMS/cxx.cpp"
same_trees cxx chosen
pass
