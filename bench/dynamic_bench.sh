#!/usr/bin/env bash
# dynamic_bench.sh - cost per call of tracing an unmodified binary: the
# calltrace in-process engine (entries patched) and ptrace engine beside
# ltrace (per library call) and uftrace's dynamic patching (`uftrace record
# -P .`, no library calls, so that both count the same calls), every run pinned to
# one CPU with `taskset -c 0`, repeated, medians.  The figure is
# (traced time - untraced time) / calls.  The engine's stops per call come
# from its own count; the cost of one bare ptrace stop is shown beside it.
#
#   bash bench/dynamic_bench.sh         (run at the end of bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/dynamic_bench.sh
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
	reps=${BENCH_REPS:-3} n_ct=10000 n_lt=2000 n_uf=300000 n_pt=1000000
else
	reps=${BENCH_REPS:-5} n_ct=100000 n_lt=5000 n_uf=1000000 n_pt=3000000
fi

[ -x "$CALLTRACE" ] || { echo "dynamic_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "dynamic_bench: taskset is needed" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# -O0: the leaf starts with the usual push %rbp prologue, which every
# dynamic tracer here can patch.
$CC -std=gnu11 -O0 -g -o "$tmp/bench" tests/programs/dynamic/bench_calls.c
$CC -std=gnu11 -O2 -o "$tmp/stop_cost" tests/programs/dynamic/stop_cost.c


# ns COMMAND...: wall time of one run in nanoseconds (output discarded).
ns() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1 || return 1
	t1=$(date +%s%N)
	echo $((t1 - t0))
}

# one N BASE_MODE COMMAND...: (time of COMMAND - time of the untraced
# program in BASE_MODE) / N, in us.
one() {
	local n=$1 mode=$2 traced plain
	shift 2
	plain=$(ns taskset -c 0 "$tmp/bench" "$mode" "$n") || return 1
	traced=$(ns taskset -c 0 "$@") || return 1
	awk -v t="$traced" -v p="$plain" -v n="$n" 'BEGIN { printf "%.3f\n", (t - p) / n / 1000 }'
}

echo "== tracing without recompiling: cost per call (pinned: taskset -c 0, median of $reps) =="
have_ltrace=0 have_uftrace=0
command -v ltrace >/dev/null && have_ltrace=1
command -v uftrace >/dev/null && have_uftrace=1
# The tools take turns in every repetition, so that a change in the load of
# the machine touches them alike.
for ((i = 0; i < reps; i++)); do
	one "$n_pt" calls "$CALLTRACE" record -q --replace --engine patch -o "$tmp/pt.trace" "$tmp/bench" calls \
		"$n_pt" >>"$tmp/pt.times" || true
	one "$n_ct" calls "$CALLTRACE" record -q --replace --dynamic -o "$tmp/ct.trace" "$tmp/bench" calls "$n_ct" \
		>>"$tmp/ct.times" || true
	[ "$have_ltrace" = 0 ] ||
		one "$n_lt" libcalls ltrace -o "$tmp/lt.out" "$tmp/bench" libcalls "$n_lt" >>"$tmp/lt.times" || true
	[ "$have_uftrace" = 0 ] ||
		one "$n_uf" calls uftrace record -d "$tmp/uftrace.data" -P . --no-libcall "$tmp/bench" calls "$n_uf" \
			>>"$tmp/uf.times" || true
	taskset -c 0 "$tmp/stop_cost" 20000 >>"$tmp/stop.times" 2>/dev/null || true
done
touch "$tmp/pt.times" "$tmp/ct.times" "$tmp/lt.times" "$tmp/uf.times" "$tmp/stop.times"
pt=$(median <"$tmp/pt.times")
ct=$(median <"$tmp/ct.times")
lt=$(median <"$tmp/lt.times")
uf=$(median <"$tmp/uf.times")
stop=$(median <"$tmp/stop.times")
if [ "$have_uftrace" = 1 ]; then
	# Only a figure if uftrace really traced the calls.
	got=$(uftrace report -d "$tmp/uftrace.data" 2>/dev/null | awk '$NF == "bench_leaf" { print $(NF-1) }')
	[ "${got:-0}" = "$n_uf" ] || uf=nan
fi
stats=$(CALLTRACE_DEBUG=1 taskset -c 0 "$CALLTRACE" record -q --replace --dynamic -o "$tmp/ct.trace" \
	"$tmp/bench" calls "$n_ct" 2>&1 >/dev/null | grep -o '[0-9.]* stops per call' || true)
# Only a figure if every call was recorded, and the bytes each took.
pt_calls=$("$CALLTRACE" report "$tmp/pt.trace" 2>/dev/null | awk '$NF == "bench_leaf" { print $5 }')
[ "${pt_calls:-0}" = "$n_pt" ] || pt=nan
pt_bytes=$("$CALLTRACE" info "$tmp/pt.trace" 2>/dev/null | sed -n 's/.*, \([0-9.]*\) bytes per call.*/\1/p')
printf '  %-36s %10s us per call   (%s bytes per call)\n' "calltrace record --engine patch" "$pt" \
	"${pt_bytes:-n/a}"
printf '  %-36s %10s us per call   (%s)\n' "calltrace record --engine ptrace" "$ct" "${stats:-stops n/a}"
printf '  %-36s %10s us per call   (output to a file)\n' "ltrace, per library call" "$lt"
printf '  %-36s %10s us per call   (in-process patching)\n' "uftrace record -P ." "$uf"
printf '  %-36s %10s us            (the floor: two per call)\n' "one ptrace stop here" "$stop"
awk -v p="$pt" -v u="$uf" 'BEGIN {
	if (p == "nan" || u == "nan" || p <= 0) { print "  in-process vs uftrace -P .: n/a"; exit }
	r = u / p
	verdict = (r >= 3) ? "PASS" : "MISS"
	printf "  in-process engine vs uftrace -P .: %.1fx less per call (target >= 3x): %s\n", r, verdict }'
awk -v c="$ct" -v l="$lt" 'BEGIN {
	if (c == "nan" || l == "nan" || c <= 0) { print "  calltrace vs ltrace: n/a"; exit }
	r = l / c
	verdict = (r >= 5) ? "PASS" : "MISS"
	printf "  calltrace vs ltrace: %.1fx faster (target >= 5x): %s\n", r, verdict }'
