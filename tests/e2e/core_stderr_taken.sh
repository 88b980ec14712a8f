#!/usr/bin/env bash
# core_stderr_taken.sh - a program that closes its stderr and opens a file
# of its own on descriptor 2 (stderr_taken.c): with -v, the runtime's lines
# at the program's end (the in-process engine's counts) still reach the
# stderr the program started with, and the program's file holds only what
# the program wrote (they once went into it).  The same for a program built
# with the hooks.
source "$(dirname "$0")/lib.sh"
setup

for build in plain hooks; do
	CFLAGS_TRACED=(-g -O1)
	[ "$build" = plain ] || CFLAGS_TRACED+=(-finstrument-functions)
	build_c "taken_$build" "$PROGRAMS/stderr_taken.c"
	record "$build" -v "$WORK/taken_$build" "$WORK/$build.file"
	[ "$RC" = 0 ] || fail "$build: exit status $RC: $(head -c 300 "$WORK/$build.err")"
	[ "$(cat "$WORK/$build.file")" = "fd 2 sum 32" ] ||
		fail "$build: the program's file holds: $(head -c 300 "$WORK/$build.file")"
	grep -q "^calltrace: 1 process, 1 thread, " "$WORK/$build.err" ||
		fail "$build: no summary on stderr: $(tail -n 3 "$WORK/$build.err" | head -c 300)"
done
grep -qx "calltrace: in-process engine: [0-9]* functions marked, 2 ran" "$WORK/plain.err" ||
	fail "the in-process engine's end counts did not reach stderr: $(tail -n 4 "$WORK/plain.err" | head -c 400)"
pass
