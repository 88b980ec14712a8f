#!/usr/bin/env bash
# reliability_signals.sh - a 10 kHz signal storm (ITIMER_REAL and
# ITIMER_PROF) whose handler makes instrumented calls while the main code
# runs a busy loop of instrumented calls, recorded several times.  Each
# time: exit 0 and the main code's output as untraced; the trace holds
# exactly the main code's calls (the program counts them itself); the
# handler's calls are recorded exactly, or the ones missing are the ones
# `calltrace info` reports not recorded; 0 problems, 0 unfinished calls.
# TORTURE=1: 14 recordings of 7 times the calls.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel sigstorm sigstorm.c

iterations=$(sized 1000000 20000000)
rounds=$(sized 2 7)

# field OUT NAME: the number after NAME in the program's output line.
field() {
	awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"
}

total_ticks=0 total_dropped=0
for ((round = 1; round <= rounds; round++)); do
	for timer in real prof; do
		name=$timer$round
		run_plain "$name" "$WORK/sigstorm" "$timer" "$iterations"
		record "$name" "$WORK/sigstorm" "$timer" "$iterations"
		[ "$RC" = 0 ] || fail "$name: the program ended with $(exit_name "$RC"): $(head -c 300 "$WORK/$name.err")"
		out=$WORK/$name.out
		for f in main_work main_leaf sum; do
			[ "$(field "$out" $f)" = "$(field "$WORK/$name.plain.out" $f)" ] ||
				fail "$name: $f $(field "$out" $f), untraced $(field "$WORK/$name.plain.out" $f)"
		done
		info_of "$WORK/$name.trace" "$WORK/$name.info"
		info=$WORK/$name.info
		[ "$(info_field "$info" problems)" = 0 ] ||
			fail "$name: $(info_field "$info" problems) problems: $(grep -A3 '^problems' "$info" | tr '\n' ' ' | head -c 300)"
		[ "$(info_field "$info" unfinished | cut -d' ' -f1)" = 0 ] ||
			fail "$name: $(info_field "$info" unfinished)"
		ct report "$WORK/$name.trace" >"$WORK/$name.report"
		report=$WORK/$name.report
		expect_calls "$report" main 1 "$name"
		expect_calls "$report" main_work "$iterations" "$name"
		expect_calls "$report" main_leaf "$iterations" "$name"
		ticks=$(field "$out" on_tick)
		[ "$(field "$out" tick_leaf)" = "$ticks" ] || fail "$name: the handler miscounted itself"
		[ "$ticks" -gt 0 ] || fail "$name: no signal was delivered"
		missing=$((2 * ticks - $(calls_of "$report" on_tick) - $(calls_of "$report" tick_leaf)))
		[ "$missing" -ge 0 ] || fail "$name: more handler calls recorded than made ($ticks)"
		reported=$(sed -n 's/^incomplete:.* \([0-9][0-9]*\) calls\{0,1\} not recorded.*/\1/p' "$info")
		[ "${reported:-0}" = "$missing" ] ||
			fail "$name: $missing of the handler's $((2 * ticks)) calls are missing, info reports ${reported:-0} not recorded: $(grep '^incomplete' "$info" || true)"
		total_ticks=$((total_ticks + ticks))
		total_dropped=$((total_dropped + missing))
	done
done
echo "$((2 * rounds)) recordings of $((2 * iterations)) calls each, $total_ticks signals handled, $total_dropped handler calls dropped"
pass
