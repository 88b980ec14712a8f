#!/usr/bin/env bash
# libcall_profiled.sh - a program built with -pg (gprof's mcount calls)
# records its library calls: mcount is left unhooked, since it is called
# with the calling function's arguments still in the registers; hooking it
# crashed the program.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
gcc -O2 -pg -o "$WORK/profiled" "$PROGRAMS/libcall/profiled.c" || fail "cannot build with -pg"
(cd "$WORK" && "$CALLTRACE" record -q -o "$WORK/p.trace" "$WORK/profiled" >"$WORK/p.out" 2>"$WORK/p.err") ||
	fail "record of a -pg program failed: $(head -c 300 "$WORK/p.err")"
[ "$(cat "$WORK/p.out")" = 6 ] || fail "the program printed '$(cat "$WORK/p.out")', not 6"
ct replay "$WORK/p.trace" >"$WORK/p.replay"
[ "$(grep -c ' strlen@libc\.so\.6()' "$WORK/p.replay")" = 3 ] ||
	fail "not three strlen calls: $(cat "$WORK/p.replay")"
! grep -q 'mcount' "$WORK/p.replay" || fail "mcount was recorded"
pass
