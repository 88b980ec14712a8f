#!/usr/bin/env bash
# record_filters.sh - record-time -F, -N and -D for every engine: the trace
# holds only the calls asked for.  The runtime (-finstrument-functions)
# keeps the calls of -F's functions and what they call, and so do the
# in-process and ptrace engines; -N leaves a function out
# but not its callees; -D cuts depth.
source "$(dirname "$0")/lib.sh"
setup
prog=$ROOT/tests/programs/filters/record_filters.c
build_c instrumented "$prog"
gcc -g -O0 -o "$WORK/plain" "$prog" || fail "cannot compile plain"

# graph ENGINE PROGRAM OPTION...: the function graph recorded so.
graph() {
	local engine=$1 program=$2
	shift 2
	record g --engine "$engine" "$@" "$WORK/$program"
	[ "$RC" = 0 ] || fail "$engine $*: exit $RC: $(head -c 300 "$WORK/g.err")"
	grep -qx 21 "$WORK/g.out" || fail "$engine $*: the program printed $(cat "$WORK/g.out")"
	ct replay --no-duration --no-tid "$WORK/g.trace" | grep -v '^#'
}

# The trees, one call a line ([xN]: N calls in a row of the same tree).
work_tree='| work() {
|   helper() {
|     leaf();
|   } /* helper */
|   leaf();
| } /* work */'
hidden_tree='| main() {
|   work() {
|     leaf();
|     leaf();
|   } /* work */
|   other() {
|     leaf();
|   } /* other */'
depth_tree='| main() {
|   work();
|   other();'

check() { # WHAT WANT GOT
	[ "$2" = "$3" ] || fail "$1: got
$3
want
$2"
}
repeat3() { printf '%s\n%s\n%s\n' "$1" "$1" "$1"; }

check "runtime -F" "$(repeat3 "$work_tree")" "$(graph runtime instrumented -F '^work$')"
got=$(graph runtime instrumented -N '^helper$')
check "runtime -N" "$hidden_tree" "$(printf '%s\n' "$got" | head -n 8)"
[ "$(printf '%s\n' "$got" | grep -c 'leaf()')" = 9 ] || fail "runtime -N: not 9 leaf calls"
! printf '%s\n' "$got" | grep -q helper || fail "runtime -N: helper recorded"
got=$(graph runtime instrumented -D 2)
check "runtime -D 2" "$depth_tree" "$(printf '%s\n' "$got" | head -n 3)"
[ "$(printf '%s\n' "$got" | grep -c '^|   [a-z]*();$')" = 6 ] || fail "runtime -D 2: not 6 calls at depth 1"
! printf '%s\n' "$got" | grep -q 'leaf\|helper' || fail "runtime -D 2: deeper calls recorded"

for engine in patch ptrace; do
	check "$engine -F" "$(repeat3 "$work_tree")" "$(graph $engine plain -F '^work$')"
	got=$(graph $engine plain -N '^helper$')
	check "$engine -N" "$hidden_tree" "$(printf '%s\n' "$got" | head -n 8)"
	! printf '%s\n' "$got" | grep -q helper || fail "$engine -N: helper recorded"
done
for engine in patch ptrace; do
	got=$(graph $engine plain -D 2)
	check "$engine -D 2" "$depth_tree" "$(printf '%s\n' "$got" | head -n 3)"
	[ "$(printf '%s\n' "$got" | grep -c '^|   [a-z]*();$')" = 6 ] ||
		fail "$engine -D 2: not 6 calls at depth 1"
	! printf '%s\n' "$got" | grep -q 'leaf\|helper' || fail "$engine -D 2: deeper calls recorded"
done
pass
