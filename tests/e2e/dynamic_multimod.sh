#!/usr/bin/env bash
# dynamic_multimod.sh - tests/programs/multimod built WITHOUT instrumentation
# and recorded by the dynamic engine (--module for its shared library and
# the plugin it dlopen's and dlclose's): the same call trees of every
# process and thread as with -finstrument-functions, file:line of every
# call, output and exit code unchanged.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
for mode in pie nopie; do
	dir=$WORK/mm_$mode
	build_multimod "$dir" "$mode"
	run_plain mm "$dir/multimod" "$dir/plugin.so"
	record mm --dynamic --module 'libshared|plugin' "$dir/multimod" "$dir/plugin.so"
	same_as_plain mm
	to_json mm
	check_tree schema "$WORK/mm.json" --command "$dir/multimod $dir/plugin.so" --total --files
	expect_trees mm <<'TREES'
== process 1 main
main
  use_static
    st_square
    st_add
  use_shared
    sh_scale
      sh_clamp
  use_plugin
    pl_entry
      pl_double
  fork_exit_child
    wait_child
  fork_quick_exit_child
    wait_child
  run_threads
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
== process 3 main
child_quick_work
  sh_clamp
TREES
	check_tree lines "$WORK/mm.json" "$dir/libshared.so" "$dir/plugin.so" "$dir/multimod"
	expect_meta mm processes 3
	expect_meta mm threads 5
	multimod_pids
done
pass
