#!/usr/bin/env bash
# core_longjmp.sh - calls left by longjmp, siglongjmp from a signal handler,
# and a longjmp to a function that stays open end at the jump, unfinished;
# the calls after the jump are siblings of the call that jumped, not its
# children.  Built plain (-O0) and with -O2 -D_FORTIFY_SOURCE=2, where
# longjmp becomes __longjmp_chk; and with CALLTRACE_MAX_DEPTH=2, where the
# jumps leave calls that were not written.  A forked child jumps too.  Then a timer's handler that
# siglongjmps out of wherever it lands, often the middle of a hook: the
# recording goes on to the end.
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
	grep -qx 'jumps 4' "$WORK/$prog.out" || fail "$prog printed: $(head -c 200 "$WORK/$prog.out")"
	to_json "$prog"
	expect_trees "$prog" <<'TREES'
== process 1 main
main
  jump_plain [x2]
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
  jump_in_child
== process 2 main
jump_plain
  dive_1 [unfinished]
    dive_2 [unfinished]
      dive_3 [unfinished]
  after_jump [x2]
TREES
	expect_replay "$prog"
done

CALLTRACE_MAX_DEPTH=2 record depth2 "$WORK/jumps"
to_json depth2
expect_trees depth2 <<'TREES'
== process 1 main
main
  jump_plain [x2]
  jump_from_handler
  jump_nested
  jump_in_child
TREES

build_c timer_jumps "$PROGRAMS/timer_jumps.c"
record timer "$WORK/timer_jumps"
grep -qx 'jumps 50' "$WORK/timer.out" || fail "timer_jumps printed: $(head -c 200 "$WORK/timer.out")"
# Two levels: main (finished), the 50 spins the jumps left (unfinished),
# the handler's returns while nothing was armed, and final_call last.
to_json timer -D 2
check_tree render "$WORK/timer.json" >"$WORK/timer.trees"
awk 'NR == 2 && $0 != "main" { bad = "main is not a finished root: " $0 }
	/^  spin \[unfinished\]/ { n += /\[x[0-9]+\]/ ? substr($NF, 3, length($NF) - 3) : 1 }
	/^  / && !/^  (spin \[unfinished\]|on_alarm)/ && !/^  final_call$/ { bad = "unexpected: " $0 }
	END { if (!bad && n != 50) bad = n " spins, not 50"
	      if (!bad && last != "  final_call") bad = "final_call is not last"
	      if (bad) { print bad; exit 1 } }
	{ last = $0 }' "$WORK/timer.trees" >"$WORK/timer.why" ||
	fail "timer: $(cat "$WORK/timer.why"): $(head -c 400 "$WORK/timer.trees")"
ct info "$WORK/timer.trace" >"$WORK/timer.info"
grep -q '^problems: *0$' "$WORK/timer.info" || fail "timer: problems: $(grep -A3 '^problems' "$WORK/timer.info")"
pass
