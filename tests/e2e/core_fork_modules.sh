#!/usr/bin/env bash
# core_fork_modules.sh - a fork child's modules are its parent's at the
# time of the fork: a child forked while a dlopen'd plugin is loaded lists
# the plugin and its calls into it are named; a child forked after the
# dlclose does not list it.  The hooks build (the runtime) and the plain
# build (the in-process engine, the plugin one of the program's own
# libraries) give the same trees.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/fork_modules/fork_modules.c

# modules_of NAME IMAGE: the module paths of that image in `info`, sorted.
modules_of() {
	awk -v want="image $2:" '
		/^  image / { on = index($0, want) > 0; next }
		on && /^    module / { print $3 }' "$WORK/$1.info" | sort
}

check_run() {
	local name=$1 dir=$2
	run_plain "$name" "$dir/fork_modules" "$dir/plugin.so"
	record "$name" "$dir/fork_modules" "$dir/plugin.so"
	same_as_plain "$name"
	ct info "$WORK/$name.trace" >"$WORK/$name.info"
	grep -q '^  image 2: .*forked from image 1' "$WORK/$name.info" || fail "$name: image 2 is not the first child"
	grep -q '^  image 3: .*forked from image 1' "$WORK/$name.info" || fail "$name: image 3 is not the second child"
	modules_of "$name" 1 >"$WORK/$name.m1"
	modules_of "$name" 2 >"$WORK/$name.m2"
	modules_of "$name" 3 >"$WORK/$name.m3"
	grep -qx "$dir/plugin.so" "$WORK/$name.m1" || fail "$name: the parent does not list the plugin"
	expect_text "$name: the first child's modules (the parent's at its fork)" "$WORK/$name.m1" "$WORK/$name.m2"
	grep -vx "$dir/plugin.so" "$WORK/$name.m1" >"$WORK/$name.m1-unloaded"
	expect_text "$name: the second child's modules (the plugin unloaded)" "$WORK/$name.m1-unloaded" "$WORK/$name.m3"
	to_json "$name"
	expect_trees "$name" <<'TREES'
== process 1 main
main
  pl_entry
    pl_double
  reap [x2]
== process 2 main
child_in_plugin [unfinished]
  pl_entry
    pl_double
== process 3 main
child_after_unload [unfinished]
TREES
}

mkdir -p "$WORK/hooks" "$WORK/plain"
build_c hooks/fork_modules "$src" -ldl
build_c hooks/plugin.so "$PROGRAMS/multimod/plugin.c" -fPIC -shared
check_run hooks "$WORK/hooks"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
build_c plain/fork_modules "$src" -ldl
build_c plain/plugin.so "$PROGRAMS/multimod/plugin.c" -fPIC -shared
check_run plain "$WORK/plain"
pass
