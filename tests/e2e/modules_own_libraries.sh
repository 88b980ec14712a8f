#!/usr/bin/env bash
# modules_own_libraries.sh - without any option, the in-process engine
# records the program and the shared libraries and plugins that are its own
# (outside the system's library folders), and gives the same call trees as
# the -finstrument-functions build of the same program, libraries and
# plugin included: tests/programs/multimod (a static library, a shared
# library beside it found through RUNPATH, a plugin dlopen'ed, called
# through a dlsym pointer and dlclose'd), PIE and non-PIE, library calls
# on.  A call into an own library (through the PLT, a dlsym pointer, or a
# library's PLT into itself) is recorded once, as the function's call, not
# also as a library call; the calls into the C library stay library calls.
# -v says which modules were chosen and why; a library found through
# LD_LIBRARY_PATH in another folder is the program's own too;
# --no-own-libraries gives the program alone.  Under --engine runtime, a
# call into a library built with -finstrument-functions is its hooks' call
# alone too.
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup

# The trees with their kinds: "function" calls as they are, library calls
# marked "@", so that a call recorded twice shows.
kind_trees() {
	python3 - "$WORK/$1.json" >"$WORK/$1.trees" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
def mark(calls):
    for c in calls:
        if c.get("kind", "function") == "library":
            c["function"] = "@" + c["function"]
        mark(c.get("children", []))
for tree in doc["call_trees"].values():
    mark(tree.get("calls", []))
json.dump(doc, open(sys.argv[1] + ".kinds", "w"))
PY
	check_tree render "$WORK/$1.json.kinds" >"$WORK/$1.trees"
}

cat >"$WORK/expected" <<'TREES'
== process 1 main
main
  use_static
    st_square
    st_add
  @printf
  use_shared
    sh_scale
      sh_clamp
  @printf
  use_plugin
    @dlopen
    @dlsym
    pl_entry
      pl_double
    @dlclose
  @printf
  fork_exit_child
    @fflush
    @fork
    wait_child
      @waitpid
  @printf
  fork_quick_exit_child
    @fflush
    @fork
    wait_child
      @waitpid
  @printf
  run_threads
    @pthread_create [x2]
    @pthread_join [x2]
  @printf
== process 1 thread
thread_a_main
  a_step
    st_square
== process 1 thread
thread_b_main
  b_step
    sh_clamp
== process 2 main
child_exit_work
  st_add
  sh_scale
    sh_clamp
  @printf
@exit [unfinished]
== process 3 main
child_quick_work
  sh_clamp
  @dprintf
@_exit [unfinished]
TREES

for mode in pie nopie; do
	build_multimod "$WORK/hooks_$mode" "$mode"
	CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
	build_multimod "$WORK/plain_$mode" "$mode"
	CFLAGS_TRACED=(-g -O0 -finstrument-functions -Wall -Wextra)
	for build in hooks plain; do
		dir=$WORK/${build}_$mode
		name=${build}_$mode
		run_plain "$name" "$dir/multimod" "$dir/plugin.so"
		record "$name" -v "$dir/multimod" "$dir/plugin.so"
		same_as_plain "$name"
		to_json "$name"
		kind_trees "$name"
		expect_text "$name: the call trees" "$WORK/expected" "$WORK/$name.trees"
	done
	expect_text "$mode: the trees without recompiling" "$WORK/hooks_$mode.trees" \
		"$WORK/plain_$mode.trees"
	err=$WORK/plain_$mode.err
	for line in "$WORK/plain_$mode/multimod recorded (the program)" \
		"$WORK/plain_$mode/libshared.so recorded (the program's own library: beside the program)" \
		"$WORK/plain_$mode/plugin.so recorded (the program's own library: beside the program)" \
		"libc.so.6 not recorded (a system library: the calls into it are library calls)"; do
		grep -qF "$line" "$err" || fail "$mode: -v does not say '$line': $(grep 'in-process' "$err")"
	done
	[ "$(grep -c 'libshared.so recorded' "$err")" = 1 ] ||
		fail "$mode: -v says libshared's choice more than once"
done

# The hooks build with --engine runtime (nothing patched): a call into a
# library whose hooks record it is not a library call too.
dir=$WORK/hooks_pie
record hooks_runtime --engine runtime "$dir/multimod" "$dir/plugin.so"
to_json hooks_runtime
kind_trees hooks_runtime
expect_text "--engine runtime" "$WORK/expected" "$WORK/hooks_runtime.trees"

# --no-own-libraries: the program alone; its calls into libshared are
# library calls, the plugin's function is not recorded.
dir=$WORK/plain_pie
record own_off --no-own-libraries "$dir/multimod" "$dir/plugin.so"
to_json own_off
kind_trees own_off
head -n 16 "$WORK/own_off.trees" >"$WORK/own_off.head"
cat >"$WORK/own_off.expected" <<'TREES'
== process 1 main
main
  use_static
    st_square
    st_add
  @printf
  use_shared
    @sh_scale
  @printf
  use_plugin
    @dlopen
    @dlsym
    @pl_entry
    @dlclose
  @printf
  fork_exit_child
TREES
expect_text "--no-own-libraries" "$WORK/own_off.expected" "$WORK/own_off.head"

# A library found through LD_LIBRARY_PATH, in a folder of its own.
mkdir -p "$WORK/ldpath/bin" "$WORK/ldpath/lib"
cp "$dir/libshared.so" "$WORK/ldpath/lib/"
cp "$dir/plugin.so" "$WORK/ldpath/lib/"
gcc -std=gnu11 -g -O0 "$PROGRAMS/multimod/main.c" -o "$WORK/ldpath/bin/multimod" \
	-L"$dir" -lstatic -lshared -ldl -pthread || fail "cannot build multimod without RUNPATH"
LD_LIBRARY_PATH=$WORK/ldpath/lib record ldpath -v "$WORK/ldpath/bin/multimod" \
	"$WORK/ldpath/lib/plugin.so"
grep -qF "$WORK/ldpath/lib/libshared.so recorded (the program's own library: in LD_LIBRARY_PATH" \
	"$WORK/ldpath.err" || fail "-v does not say libshared was found in LD_LIBRARY_PATH: $(grep 'libshared' "$WORK/ldpath.err")"
to_json ldpath
kind_trees ldpath
expect_text "LD_LIBRARY_PATH" "$WORK/expected" "$WORK/ldpath.trees"
pass
