#!/usr/bin/env bash
# args_descriptors.sh - recording arguments (--args reads the program's
# DWARF inside the process) leaves the program's descriptors as they are:
# its first open() gets the descriptor it gets unrecorded, under the hooks
# and under the in-process engine.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
src=$PROGRAMS/args/first_fd.c
gcc -g -O0 -o "$WORK/plain" "$src" && gcc -g -O0 -finstrument-functions -o "$WORK/hooks" "$src" ||
	fail "cannot build first_fd"
want=$("$WORK/plain")
for build in plain hooks; do
	got=$("$CALLTRACE" record -q --args -o "$WORK/$build.trace" "$WORK/$build") ||
		fail "$build: record --args failed"
	[ "$got" = "$want" ] || fail "$build: open() gave descriptor $got under record --args, $want without"
	ct replay "$WORK/$build.trace" | grep -q "opener(path=\"/dev/null\")" ||
		fail "$build: the argument was not recorded"
done
pass
