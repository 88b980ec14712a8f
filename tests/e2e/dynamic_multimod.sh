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
	build_multimod "$WORK/mm_$mode" "$mode"
	multimod_check "$WORK/mm_$mode" "$mode" --dynamic --module 'libshared|plugin'
done
pass
