#!/usr/bin/env bash
# args_bench.sh - the cost of recording arguments and return values, per
# call and in trace bytes per call, for a two-int function and a char *
# function, beside uftrace's -A/-R on the same program and beside
# recording the calls alone (which --args must not slow down when off).
# Programs built -O2 -g without tracing flags (the in-process engine, and
# uftrace -P) and with -finstrument-functions (the runtime, whose entries
# are then patched only to capture).  Pinned to one CPU, medians.
#
#   bash bench/args_bench.sh            (run at the end of bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/args_bench.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
if [ "${BENCH_QUICK:-0}" = 1 ]; then reps=${BENCH_REPS:-3} n=200000; else reps=${BENCH_REPS:-5} n=1000000; fi
command -v uftrace >/dev/null || { echo "args_bench: uftrace is needed (make deps)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC -O2 -g -o "$tmp/plain" bench/workloads/args_calls.c
$CC -O2 -g -finstrument-functions -o "$tmp/instr" bench/workloads/args_calls.c

ns() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1 || return 1; t1=$(date +%s%N); echo $((t1 - t0)); }

# cost MODE PROGRAM COMMAND...: ns per call over the untraced PROGRAM.
cost() {
	local mode=$1 prog=$2 i plain traced
	shift 2
	for ((i = 0; i < reps; i++)); do
		plain=$(ns taskset -c 0 "$prog" "$mode" "$n")
		traced=$(ns taskset -c 0 "$@" "$mode" "$n") || { echo nan; return; }
		awk -v t="$traced" -v p="$plain" -v n="$n" 'BEGIN { printf "%.1f\n", (t - p) / n }'
	done | median
}

# bytes FILE_OR_DIR: bytes per call of the recorded trace.
bytes() { du -sb "$1" | awk -v n="$n" '{ printf "%.1f", $1 / n }'; }

ct=("$CALLTRACE" record -q --replace -o "$tmp/t.trace")
uf=(uftrace record -d "$tmp/uf.data" --no-libcall)

printf '\n== arguments and return values: %d calls, ns per call over the untraced run (bytes per call) ==\n' "$n"
printf '%-44s %14s %14s\n' "" "add2(int, int)" "slen(char *)"
row() {
	local label=$1 what=$2
	shift 2
	local a b ba bb
	a=$(cost ints "$@"); ba=$(bytes "$what")
	b=$(cost string "$@"); bb=$(bytes "$what")
	printf '%-44s %8s (%4s) %8s (%4s)\n' "$label" "$a" "$ba" "$b" "$bb"
}
row "calltrace, in-process engine, calls only" "$tmp/t.trace" "$tmp/plain" "${ct[@]}" "$tmp/plain"
row "calltrace, in-process engine, --args" "$tmp/t.trace" "$tmp/plain" "${ct[@]}" --args "$tmp/plain"
row "calltrace, -finstrument-functions, calls" "$tmp/t.trace" "$tmp/instr" "${ct[@]}" "$tmp/instr"
row "calltrace, -finstrument-functions, --args" "$tmp/t.trace" "$tmp/instr" "${ct[@]}" --args "$tmp/instr"
row "uftrace -P ., calls only" "$tmp/uf.data" "$tmp/plain" "${uf[@]}" -P . "$tmp/plain"
row "uftrace -P . -A/-R (the two functions)" "$tmp/uf.data" "$tmp/plain" \
	"${uf[@]}" -P . -A 'add2@arg1/i32,arg2/i32' -R 'add2@retval/i32' -A 'slen@arg1/s' -R 'slen@retval' "$tmp/plain"
