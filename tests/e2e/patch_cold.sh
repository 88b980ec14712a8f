#!/usr/bin/env bash
# patch_cold.sh - GCC's hot/cold splitting: a function's unlikely path in a
# symbol of its own (work.cold), jumped into with work's frame in place.
# No engine may patch it as a function: the program's output stays its own
# (the fragment's "return address" is work's local data) and the calls are
# exactly the program's, under the in-process and the ptrace engines.
source "$(dirname "$0")/lib.sh"
setup

gcc -std=gnu11 -g -O2 -o "$WORK/cold" "$PROGRAMS/patch/cold_split.c" || fail "cannot compile cold_split"
nm "$WORK/cold" | grep -q ' work\.cold' || skip "this compiler made no work.cold fragment"
gcc -std=gnu11 -g -O2 -static -o "$WORK/cold_static" "$PROGRAMS/patch/cold_split.c" ||
	fail "cannot compile cold_split -static"

for engine in patch ptrace; do
	prog=$WORK/cold
	[ $engine = ptrace ] && prog=$WORK/cold_static
	record "cold_$engine" --engine $engine "$prog" 42
	[ "$RC" = 0 ] || fail "$engine: exit status $RC"
	[ "$(cat "$WORK/cold_$engine.out")" = 506 ] ||
		fail "$engine: the program printed $(head -c 200 "$WORK/cold_$engine.out"), not 506"
	ct report "$WORK/cold_$engine.trace" >"$WORK/cold_$engine.report"
	awk 'NR > 2 && $NF ~ /^(main|work|fill|rare|work\.cold)$/ { print $NF, $5 }' \
		"$WORK/cold_$engine.report" | sort >"$WORK/cold_$engine.counts"
	expect_text "$engine: calls" - "$WORK/cold_$engine.counts" <<'COUNTS'
fill 1
main 1
rare 1
work 1
COUNTS
done
pass
