#!/usr/bin/env bash
# patch_first_call_race.sh - first calls that race: 8 threads lined up at a
# barrier call the same 4 fresh functions at once (each thread's tree
# exact: 1000 rounds, none lost while another thread patches); a signal
# handler that blocks every signal makes a function's first call, and so
# does code that blocked every signal with sigprocmask (the marks' trap is
# never blocked); a program with its own SIGTRAP handler gets its own
# traps (raised, and an int3 of its code), and its handler back when it
# asks: every call recorded, the program's output unchanged.  A handler
# set with SA_RESETHAND is the default's after its trap: a second trap
# kills the program, traced as untraced.
source "$(dirname "$0")/lib.sh"
setup

gcc -std=gnu11 -g -O0 -pthread -o "$WORK/first_call" "$PROGRAMS/patch/first_call.c" ||
	fail "cannot compile first_call"

run_plain race "$WORK/first_call" race
record race --engine patch --no-cache -v "$WORK/first_call" race
same_as_plain race
grep -q "^calltrace: in-process engine: [0-9]* functions marked, 7 ran$" "$WORK/race.err" ||
	fail "race: not 7 functions ran: $(grep 'ran$' "$WORK/race.err")"
to_json race
{
	printf '%s\n' "== process 1 main" main "  race"
	for _ in 1 2 3 4 5 6 7 8; do
		printf '%s\n' "== process 1 thread" racer "  race_d [x1000]" "    race_c" "    race_b" "      race_a"
	done
} >"$WORK/race.expected"
check_tree render "$WORK/race.json" >"$WORK/race.got"
expect_text "trees of 8 racing threads" "$WORK/race.expected" "$WORK/race.got"

run_plain signal "$WORK/first_call" signal
record signal --engine patch --no-cache -v "$WORK/first_call" signal
same_as_plain signal
grep -qx "signal 3 42" "$WORK/signal.out" || fail "signal: printed $(cat "$WORK/signal.out")"
grep -q "^calltrace: in-process engine: [0-9]* functions marked, 5 ran$" "$WORK/signal.err" ||
	fail "signal: not 5 functions ran: $(grep 'ran$' "$WORK/signal.err")"
to_json signal
expect_trees signal <<'TREES'
== process 1 main
main
  in_signal
    on_usr1 [x3]
      handled
    masked
TREES

run_plain trap "$WORK/first_call" trap
record trap --engine patch --no-cache -v "$WORK/first_call" trap
same_as_plain trap
grep -qx "trap 3 1" "$WORK/trap.out" || fail "trap: printed $(cat "$WORK/trap.out")"
to_json trap
expect_trees trap <<'TREES'
== process 1 main
main
  own_trap
    on_trap [x3]
      count_trap
TREES
grep -q "^calltrace: in-process engine: [0-9]* functions marked, 4 ran$" "$WORK/trap.err" ||
	fail "trap: not 4 functions ran: $(grep 'ran$' "$WORK/trap.err")"

# A handler set with SA_RESETHAND takes one trap, then is the default's:
# the second trap kills the process, traced as untraced.
run_plain trap_once "$WORK/first_call" trap_once
[ "$PLAIN_RC" = 133 ] || fail "trap_once untraced exited $PLAIN_RC, not 133 (SIGTRAP)"
record trap_once --engine patch --no-cache "$WORK/first_call" trap_once
same_as_plain trap_once
grep -qx "trap_once 1 1" "$WORK/trap_once.out" || fail "trap_once: printed $(cat "$WORK/trap_once.out")"
pass
