#!/usr/bin/env bash
# patch_multimod.sh - tests/programs/multimod built WITHOUT instrumentation
# and recorded by the in-process engine (--module for its shared library
# and the plugin it dlopen's and dlclose's, patched when the dynamic linker
# has loaded it): the same call trees of every process and thread as with
# -finstrument-functions, file:line of every call, output and exit code
# unchanged.  PIE and non-PIE (MODES: those given).
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
for mode in ${MODES:-pie nopie}; do
	build_multimod "$WORK/mm_$mode" "$mode"
	multimod_check "$WORK/mm_$mode" "$mode" --engine patch --module 'libshared|plugin'
done
pass
