#!/usr/bin/env bash
# core_longjmp.sh - calls left by longjmp, siglongjmp from a signal handler,
# and a longjmp to a function that stays open end at the jump, unfinished;
# the calls after the jump are siblings of the call that jumped, not its
# children.  Built plain (-O0) and with -O2 -D_FORTIFY_SOURCE=2, where
# longjmp becomes __longjmp_chk.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c jumps "$PROGRAMS/jumps.c"
gcc -std=gnu11 -g -O2 -D_FORTIFY_SOURCE=2 -finstrument-functions -o "$WORK/jumps_fortified" \
	"$PROGRAMS/jumps.c" || fail "cannot compile jumps with _FORTIFY_SOURCE"
nm "$WORK/jumps_fortified" | grep -q '__longjmp_chk' ||
	fail "the fortified build does not call __longjmp_chk"

for prog in jumps jumps_fortified; do
	record "$prog" "$WORK/$prog"
	grep -qx 'jumps 3' "$WORK/$prog.out" || fail "$prog printed: $(head -c 200 "$WORK/$prog.out")"
	to_json "$prog"
	expect_trees "$prog" <<'TREES'
== process 1 main
main
  jump_plain
    dive_1 [unfinished]
      dive_2 [unfinished]
        dive_3 [unfinished]
    after_jump [x2]
  jump_from_handler
    sig_dive [unfinished]
      on_usr1 [unfinished]
    after_jump
  jump_nested
    catcher
      dive_1 [unfinished]
        dive_2 [unfinished]
          dive_3 [unfinished]
      after_jump
    after_jump
TREES
	expect_replay "$prog"
done
pass
