#!/usr/bin/env bash
# attach_bench.sh - what a call costs in a running 4-thread process while
# `calltrace attach` records it with the in-process engine, beside the same
# program run under `calltrace record --engine patch` and untraced, and how
# long the detach takes.
#
# The program (tests/programs/dynamic/attach_rate.c) measures each thread's
# CPU time over N calls of a small function; the figure is (traced - plain)
# ns per call, medians of the repetitions.  The detach time is what
# `attach --verbose` says (every thread stopped, entries put back, the trace
# file closed, every thread let go).
#
#   bash bench/attach_bench.sh
#   BENCH_QUICK=1 bash bench/attach_bench.sh
#
# Environment: CALLTRACE (default build/bin/calltrace), CC (default gcc),
# BENCH_REPS (repetitions, default 5; 3 quick).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	reps=${BENCH_REPS:-3} n=300000
else
	reps=${BENCH_REPS:-5} n=2000000
fi
threads=4
[ -x "$CALLTRACE" ] || { echo "attach_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }

tmp=$(mktemp -d)
target=
trap 'if [ -n "$target" ]; then kill -KILL "$target" 2>/dev/null || true; fi; rm -rf "$tmp"' EXIT
$CC -std=gnu11 -O0 -g -o "$tmp/rate" tests/programs/dynamic/attach_rate.c -lpthread


# start [N]: the program waiting for its go file; its pid in $target.
start() {
	rm -f "$tmp/pid" "$tmp/go"
	"$tmp/rate" "$tmp/pid" "$tmp/go" "${1:-$n}" "$threads" >"$tmp/rate.out" &
	target=$!
	for ((i = 0; i < 200; i++)); do
		[ -s "$tmp/pid" ] && return 0
		sleep 0.02
	done
	echo "attach_bench: the program did not start" >&2
	exit 1
}

plain_run() {
	touch "$tmp/go"
	"$tmp/rate" "$tmp/pid" "$tmp/go" "$n" "$threads"
}

record_run() {
	touch "$tmp/go"
	"$CALLTRACE" record -q --replace --engine patch -o "$tmp/r.trace" "$tmp/rate" "$tmp/pid" "$tmp/go" \
		"$n" "$threads"
}

# attach_run: attaches, lets the calls go once the entries are patched,
# and prints the program's ns per call (the attach ends when it exits).
attach_run() {
	start
	rm -f "$tmp/a.trace" # a trace there would be kept under a numbered name
	"$CALLTRACE" attach -p "$target" -v -o "$tmp/a.trace" 2>"$tmp/a.err" &
	local attach=$!
	for ((i = 0; i < 500; i++)); do
		grep -q "functions patched" "$tmp/a.err" 2>/dev/null && break
		sleep 0.01
	done
	touch "$tmp/go"
	wait "$target"
	target=
	wait "$attach" || true
	cat "$tmp/rate.out"
}

# detach_run: attaches for 300 ms while the calls run (more than it
# makes in that time); the detach time.
detach_run() {
	start 1000000000
	touch "$tmp/go"
	rm -f "$tmp/d.trace"
	"$CALLTRACE" attach -p "$target" -v --duration 300ms -o "$tmp/d.trace" 2>"$tmp/d.err" || true
	kill -KILL "$target" 2>/dev/null || true
	wait "$target" 2>/dev/null || true
	target=
	sed -n 's/^calltrace: detached in \([0-9.]*\) ms.*/\1/p' "$tmp/d.err"
}

plain=() record=() attach=() detach=()
for ((r = 0; r < reps; r++)); do
	plain+=("$(plain_run)")
	record+=("$(record_run)")
	attach+=("$(attach_run)")
	detach+=("$(detach_run)")
done
p=$(printf '%s\n' "${plain[@]}" | median)
rc=$(printf '%s\n' "${record[@]}" | median)
at=$(printf '%s\n' "${attach[@]}" | median)
dt=$(printf '%s\n' "${detach[@]}" | median)
dmax=$(printf '%s\n' "${detach[@]}" | sort -g | tail -n 1)
echo "attach_bench: $threads threads, $n calls each, $reps runs, CPU ns per call (medians)"
awk -v p="$p" -v r="$rc" -v a="$at" 'BEGIN {
	printf "  untraced                      %8.1f ns\n", p
	printf "  record --engine patch         %8.1f ns  (+%.1f ns per call)\n", r, r - p
	printf "  attach (in-process engine)    %8.1f ns  (+%.1f ns per call)\n", a, a - p
}'
echo "  detach: median $dt ms, max $dmax ms"
