#!/usr/bin/env bash
# kernel_bench.sh - what recording a system call costs: `calltrace record
# --syscalls` beside `strace -f` and `perf trace` (when it works here), in
# one run, on a loop of N getppid() (or 1-byte reads of /dev/zero).
#
# Each tool runs the loop with N calls and with none; the cost of a call is
# the difference divided by N, less the same for the untraced loop, so the
# tools' start-up does not count.  Figures: wall time and CPU time (user +
# system, of every process of the run: the tool's own included) per call,
# medians of the repetitions, and each tool's cost over calltrace's.
# The last line says whether calltrace's CPU cost per call is at most
# 1/10 of strace -f's (the target), with the ratio.
# calltrace runs with --engine runtime and --no-libcall on a program
# without hooks: only the kernel collector records, as strace records only
# the system calls (a library call's own cost is libcall_bench.sh's).
#
#   bash bench/kernel_bench.sh            # getppid
#   BENCH_CALL=read bash bench/kernel_bench.sh
#   BENCH_QUICK=1 bash bench/kernel_bench.sh
#
# Environment: CALLTRACE (default build/bin/calltrace), CC (default gcc),
# BENCH_REPS (default 5; quick 3), BENCH_N (calls; default 200000, quick
# 50000).  Needs root (or CAP_PERFMON) for the tracepoints.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
call=${BENCH_CALL:-getppid}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	reps=${BENCH_REPS:-3} n=${BENCH_N:-50000}
else
	reps=${BENCH_REPS:-5} n=${BENCH_N:-200000}
fi
[ -x "$CALLTRACE" ] || { echo "kernel_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$CC -std=gnu11 -O2 -o "$tmp/loop" bench/workloads/syscall_loop.c

tools=(plain calltrace strace)
if perf trace -o /dev/null -- "$tmp/loop" 10 "$call" >/dev/null 2>&1; then
	tools+=(perf)
fi

# run TOOL N: the loop under TOOL.
run() {
	case $1 in
	plain) "$tmp/loop" "$2" "$call" ;;
	calltrace) "$CALLTRACE" record -q --syscalls --engine runtime --no-libcall --replace \
		-o "$tmp/k.trace" "$tmp/loop" "$2" "$call" ;;
	strace) strace -f -o /dev/null "$tmp/loop" "$2" "$call" ;;
	perf) perf trace -o /dev/null -- "$tmp/loop" "$2" "$call" ;;
	esac
}

# measure TOOL N: "wall cpu" seconds of one run (CPU of every process).
measure() {
	local TIMEFORMAT='%R %U %S' t
	t=$( { time run "$1" "$2" >/dev/null 2>"$tmp/err"; } 2>&1) ||
		{ echo "kernel_bench: $1 failed: $(head -c 300 "$tmp/err")" >&2; exit 1; }
	echo "$t" | awk '{ print $1, $2 + $3 }'
}

if ! run calltrace 10 >/dev/null 2>"$tmp/err" || grep -q "not recorded" "$tmp/err"; then
	echo "kernel_bench: calltrace records no system calls here: $(cat "$tmp/err")" >&2
	exit 1
fi

echo "kernel_bench: $n ${call}() calls, $reps repetitions, tools: ${tools[*]}" >&2
for r in $(seq "$reps"); do
	for t in "${tools[@]}"; do
		full=$(measure "$t" "$n")
		empty=$(measure "$t" 0)
		echo "$full $empty" | awk -v n="$n" '{ printf "%.1f %.1f\n", ($1 - $3) * 1e9 / n, ($2 - $4) * 1e9 / n }' \
			>>"$tmp/$t.ns"
		echo "  rep $r $t: $(tail -n 1 "$tmp/$t.ns") ns/call (wall cpu)" >&2
	done
done

pw=$(med 1 "$tmp/plain.ns") pc=$(med 2 "$tmp/plain.ns")
cw=$(calc %.1f "$(med 1 "$tmp/calltrace.ns") - $pw") cc=$(calc %.1f "$(med 2 "$tmp/calltrace.ns") - $pc")
printf '%-30s %10s %10s %17s %16s\n' "per ${call}() call" "wall ns" "CPU ns" "wall / calltrace" "CPU / calltrace"
printf '%-30s %10s %10s %17s %16s\n' "untraced" "$pw" "$pc" "" ""
for t in "${tools[@]:1}"; do
	w=$(calc %.1f "$(med 1 "$tmp/$t.ns") - $pw") c=$(calc %.1f "$(med 2 "$tmp/$t.ns") - $pc")
	label=$t
	case $t in
	calltrace) label="calltrace --syscalls" ;;
	strace) label="strace -f" ;;
	perf) label="perf trace" ;;
	esac
	printf '%-30s %10s %10s %17s %16s\n' "$label (added)" "$w" "$c" "$(calc %.1fx "$w / $cw")" \
		"$(calc %.1fx "$c / $cc")"
done

# The issue's target: calltrace's CPU cost per call at most 1/10 of strace's.
ratio=$(calc %.1f "($(med 2 "$tmp/strace.ns") - $pc) / $cc")
verdict=$(calc %s "(($(med 2 "$tmp/strace.ns") - $pc) >= 10 * $cc) ? \"yes\" : \"no\"")
echo "calltrace's CPU cost per ${call}() call at most 1/10 of strace -f's: $verdict" \
	"(1/$ratio: $cc ns against $(calc %.1f "$(med 2 "$tmp/strace.ns") - $pc") ns)"
