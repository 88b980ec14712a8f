#!/usr/bin/env bash
# libcall_bench.sh - the cost of recording one library call, beside
# uftrace's (which records library calls by default too): a function that
# calls free(NULL) N times, recorded with library calls and without
# (--no-libcall, for both tools), the difference per call, at two lengths
# (N and N/10 calls) so that what a process pays once (hooking the slots,
# the start, the end) cancels out; calltrace with
# the call's values (its prototype's: free's pointer;
# CALLTRACE_LIBCALL_ARGS=1, as with --args) and without them (the
# default); uftrace records none by default.  Wall time and
# CPU time (user + system of the whole process tree), pinned to one CPU,
# runs interleaved, medians.  calltrace: the in-process engine (plain
# build) and the runtime (-finstrument-functions build); uftrace: a -pg
# build.
#
#   bash bench/libcall_bench.sh            (run at the end of bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/libcall_bench.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
if [ "${BENCH_QUICK:-0}" = 1 ]; then reps=${BENCH_REPS:-3} n=500000; else reps=${BENCH_REPS:-7} n=2000000; fi
short_n=$((n / 10))
command -v uftrace >/dev/null || { echo "libcall_bench: uftrace is needed (make deps)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=bench/workloads/libcalls.c
$CC -O2 -o "$tmp/run_measure" bench/run_measure.c
$CC -O2 -g -o "$tmp/plain" "$src"
$CC -O2 -g -finstrument-functions -o "$tmp/instr" "$src"
$CC -O2 -g -pg -o "$tmp/pg" "$src"

# measure LABEL COMMAND...: appends "wall_ns cpu_ns" of a run of N calls to
# $tmp/LABEL, of one of N/10 calls to $tmp/LABEL.short.
measure() {
	local label=$1 calls
	shift
	for calls in "$n" "$short_n"; do
		local file=$tmp/$label
		[ "$calls" = "$n" ] || file=$file.short
		taskset -c 0 "$tmp/run_measure" /dev/null "$tmp/err" "$@" "$calls" |
			awk '{ print $1, $3 + $4 }' >>"$file" ||
			{ echo "libcall_bench: $label failed: $(head -c 300 "$tmp/err")" >&2; exit 1; }
	done
}

ct=("$CALLTRACE" record -q --replace -o "$tmp/t.trace")
uf=(uftrace record -d "$tmp/uf.data")
for ((i = 0; i < reps; i++)); do
	measure ct_patch "${ct[@]}" "$tmp/plain"
	CALLTRACE_LIBCALL_ARGS=1 measure ct_args "${ct[@]}" "$tmp/plain"
	measure ct_patch_off "${ct[@]}" --no-libcall "$tmp/plain"
	measure ct_hooks "${ct[@]}" "$tmp/instr"
	measure ct_hooks_off "${ct[@]}" --no-libcall "$tmp/instr"
	measure uf "${uf[@]}" "$tmp/pg"
	measure uf_off "${uf[@]}" --no-libcall "$tmp/pg"
done

# span LABEL COLUMN: the median of LABEL's runs of N calls less that of its runs of N/10.
span() { calc '%.0f' "$(med "$2" "$tmp/$1") - $(med "$2" "$tmp/$1.short")"; }
# per_call LABEL COLUMN [BASE]: ns per library call, with them over without (BASE_off).
per_call() { calc '%.1f' "($(span "$1" "$2") - $(span "${3:-$1}_off" "$2")) / ($n - $short_n)"; }

printf '\n== library calls: %d and %d calls of free(NULL), ns per call recorded (with over without) ==\n' \
	"$n" "$short_n"
printf '%-46s %9s %9s %9s %9s\n' "" "wall ns" "CPU ns" "wall/uf" "CPU/uf"
uf_wall=$(per_call uf 1)
uf_cpu=$(per_call uf 2)
for row in "ct_patch:ct_patch:calltrace, in-process engine" \
	"ct_args:ct_patch:calltrace, in-process engine, values" \
	"ct_hooks:ct_hooks:calltrace, runtime (-finstrument-functions)" "uf:uf:uftrace record (-pg)"; do
	label=${row%%:*} rest=${row#*:}
	base=${rest%%:*}
	wall=$(per_call "$label" 1 "$base")
	cpu=$(per_call "$label" 2 "$base")
	printf '%-46s %9s %9s %9s %9s\n' "${rest#*:}" "$wall" "$cpu" "$(calc '%.2fx' "$wall / $uf_wall")" \
		"$(calc '%.2fx' "$cpu / $uf_cpu")"
done
"${ct[@]}" "$tmp/plain" "$n" 2>/dev/null
printf '%-46s %10s\n' "calltrace trace bytes per library call" \
	"$(calc '%.1f' "$(stat -c %s "$tmp/t.trace") / $n")"
echo "(calltrace's goal: at most 1/3 of uftrace's cost per library call, i.e. <= 0.33x)"
