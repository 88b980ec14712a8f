#!/usr/bin/env bash
# core_vfork_exec.sh - a vfork child that execs another instrumented program
# (traced under the child's pid, in the same trace), and a vfork child whose
# exec fails and that _exits: the parent's tree is unaffected by either.
# With library calls recorded too (the default), built with hooks and
# without: the child's execl and _exit, made on the parent's memory, are
# not written into the parent's stream, where the parent's later calls
# nested under them, left open.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c forks "$PROGRAMS/forks.c"
build_c exec_target "$PROGRAMS/exec_target.c"
run_plain vf "$WORK/forks" vfork "$WORK/plain.pids" "$WORK/exec_target"
record vf "$WORK/forks" vfork "$WORK/vf.pids" "$WORK/exec_target"
same_as_plain vf
to_json vf
check_tree schema "$WORK/vf.json" --total --files
expect_trees vf <<'TREES'
== process 1 main
main
  vfork_then_exec
    note_child
    reap
  vfork_exec_fails
    note_child
    reap
== process 2 main
main
  target_start
    target_leaf [x2]
  target_finish
TREES

# The exec'd program runs as the vfork child: its first (and only) tree is
# keyed by the child's pid; the failed child left no tree.
exec_child=$(awk '$1 == "vfork_exec_child" { print $2 }' "$WORK/vf.pids")
failed_child=$(awk '$1 == "vfork_failed_child" { print $2 }' "$WORK/vf.pids")
check_tree trees "$WORK/vf.json" >"$WORK/trees"
read -r key _ tid _ < <(awk -v p="$exec_child" '$2 == p' "$WORK/trees") || true
[ "$key" = "$exec_child" ] && [ "$tid" = "$exec_child" ] ||
	fail "exec'd child: tree '$key' tid '$tid', expected $exec_child"
! awk '{ print $2 }' "$WORK/trees" | grep -qx "$failed_child" || fail "the failed vfork child has a tree"
parent=$(awk -v p="$exec_child" '$2 != p { print $1 }' "$WORK/trees")
check_tree lines "$WORK/vf.json" "$WORK/forks" --key "$parent"
check_tree lines "$WORK/vf.json" "$WORK/exec_target" --key "$exec_child"
expect_replay vf

# Library calls on, as users record; the hooks build and the plain one.
gcc -g -O0 -no-pie -finstrument-functions -o "$WORK/lforks_hooks" "$PROGRAMS/forks.c" ||
	fail "cannot compile forks -no-pie"
gcc -g -O0 -no-pie -o "$WORK/lforks_plain" "$PROGRAMS/forks.c" || fail "cannot compile forks"
gcc -g -O0 -no-pie -o "$WORK/ltarget" "$PROGRAMS/exec_target.c" || fail "cannot compile target"
cat >"$WORK/lib.expected" <<'TREES'
main
  @fopen
  @strcmp
  @strcmp
  @snprintf
  vfork_then_exec
    @fflush
    note_child
      @fprintf
      @fflush
    reap
      @waitpid
    @printf
  vfork_exec_fails
    @fflush
    note_child
      @fprintf
      @fflush
    reap
      @waitpid
    @printf
  @fclose
main
  target_start
    target_leaf
    target_leaf
  target_finish
    @printf
  @atoi
TREES
for build in hooks plain; do
	CALLTRACE_LIBCALL=1 record "l$build" "$WORK/lforks_$build" vfork "$WORK/l$build.pids" \
		"$WORK/ltarget"
	[ "$RC" = 0 ] || fail "$build: record exited $RC: $(head -c 300 "$WORK/l$build.err")"
	ct json -o "$WORK/l$build.json" "$WORK/l$build.trace"
	python3 "$ROOT/tests/e2e/libcall_tree.py" "$WORK/l$build.json" "$WORK/lforks_$build" \
		"$WORK/ltarget" >"$WORK/l$build.got" || fail "$build: cannot read the trees"
	expect_text "library calls of the vfork program ($build)" "$WORK/lib.expected" \
		"$WORK/l$build.got"
	! ct replay "$WORK/l$build.trace" | grep -q unfinished ||
		fail "$build: unfinished calls: $(ct replay "$WORK/l$build.trace" | grep -m3 unfinished)"
done
pass
