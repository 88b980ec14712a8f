#!/usr/bin/env bash
# ring_bench.sh - the flight recorder (record --ring): the cost of a call
# with a ring beside a normal recording and uftrace, in one run, and the
# trace's size after a long run.  The workload is bench/workloads/fib.c at
# -O2 with -finstrument-functions (uftrace records the same binary); each
# variant runs BENCH_REPS times, interleaved, pinned to one CPU; medians.
# Per call: (traced - untraced) / calls, by wall time and by CPU time (user
# + system of the whole tree: uftrace's writer thread counts there), the
# start-up of each tracer (a run that makes one call) taken off.  A ring's
# file is as long as the ring from the start; its disk blocks come as its
# slots are first used: both are shown.
#
#   bash bench/ring_bench.sh            (run by bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/ring_bench.sh
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	reps=${BENCH_REPS:-3} n=28 repeat=3 long_repeat=10
else
	reps=${BENCH_REPS:-5} n=30 repeat=3 long_repeat=30
fi
command -v uftrace >/dev/null || { echo "ring_bench: uftrace is needed (make deps)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$CC" -std=gnu11 -O2 -g -o "$tmp/run_measure" bench/run_measure.c
"$CC" -std=gnu11 -O2 -g -o "$tmp/fib.plain" bench/workloads/fib.c
"$CC" -std=gnu11 -O2 -g -finstrument-functions -o "$tmp/fib.instr" bench/workloads/fib.c

# fib(N) makes 2 fib(N+1) - 1 calls; main one more.
calls_of() { awk -v n="$1" -v r="$2" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { t = a + b; a = b; b = t }
	printf "%d", r * (2 * a - 1) + 1 }'; }
calls=$(calls_of "$n" "$repeat")
long_calls=$(calls_of "$n" "$long_repeat")

variants=(plain normal ring64m ring1m uftrace)
declare -A vlabel=([plain]="untraced -O2" [normal]="calltrace record" [ring64m]="calltrace --ring 64M"
	[ring1m]="calltrace --ring 1M" [uftrace]="uftrace record")

# run VARIANT REPEAT: "ELAPSED_NS CPU_NS BYTES DISK_BYTES" of one run.
run() {
	local v=$1 r=$2 cmd line bytes=0 disk=0
	rm -rf "$tmp/t.trace" "$tmp/uf.data"
	case $v in
	plain) cmd=("$tmp/fib.plain") ;;
	normal) cmd=("$CALLTRACE" record -q --replace -o "$tmp/t.trace" "$tmp/fib.instr") ;;
	ring64m) cmd=("$CALLTRACE" record -q --replace --ring 64M -o "$tmp/t.trace" "$tmp/fib.instr") ;;
	ring1m) cmd=("$CALLTRACE" record -q --replace --ring 1M -o "$tmp/t.trace" "$tmp/fib.instr") ;;
	uftrace) cmd=(uftrace record -d "$tmp/uf.data" "$tmp/fib.instr") ;;
	esac
	line=$(taskset -c 0 "$tmp/run_measure" "$tmp/log" "$tmp/log" "${cmd[@]}" "$n" "$r") || {
		echo "ring_bench: ${vlabel[$v]} failed: $(tail -n 3 "$tmp/log")" >&2
		return 1
	}
	if [ -e "$tmp/t.trace" ]; then
		bytes=$(stat -c %s "$tmp/t.trace")
		disk=$(($(stat -c '%b * %B' "$tmp/t.trace")))
	fi
	[ ! -e "$tmp/uf.data" ] || bytes=$(du -sb "$tmp/uf.data" | cut -f1) disk=$bytes
	echo "$line $bytes $disk" | awk '{ print $1, $3 + $4, $5, $6 }'
}

for ((i = 0; i < reps; i++)); do
	for ((j = 0; j < ${#variants[@]}; j++)); do
		v=${variants[$(((i + j) % ${#variants[@]}))]}
		run "$v" "$repeat" >>"$tmp/$v.res"
		run "$v" 0 >>"$tmp/$v.start.res"
	done
done

printf '\n== flight recorder (--ring): fib(%d) x %d, %d calls, %d runs pinned to one CPU, medians ==\n' \
	"$n" "$repeat" "$calls" "$reps"
printf '  %-22s %8s %8s %10s %10s %9s %9s %10s %10s\n' tracer "wall ms" "start ms" "wall ns/c" \
	"CPU ns/c" "/ normal" "uftrace/" "file B/c" "disk B/c"
# hot COLUMN VARIANT: ns per call of that column, start-up and the untraced run's taken off.
hot() {
	calc '%.2f' "(($(med "$1" "$tmp/$2.res") - $(med "$1" "$tmp/$2.start.res")) - \
		($(med "$1" "$tmp/plain.res") - $(med "$1" "$tmp/plain.start.res"))) / ($calls - 1)"
}
wn=$(hot 1 normal) cu=$(hot 2 uftrace)
for v in "${variants[@]}"; do
	f=$tmp/$v.res
	wall=$(calc '%.1f' "$(med 1 "$f") / 1e6")
	start=$(calc '%.1f' "$(med 1 "$tmp/$v.start.res") / 1e6")
	if [ "$v" = plain ]; then
		printf '  %-22s %8s %8s %10s %10s %9s %9s %10s %10s\n' "${vlabel[$v]}" "$wall" "$start" - - - - - -
		continue
	fi
	pw=$(hot 1 "$v") pc=$(hot 2 "$v")
	printf '  %-22s %8s %8s %10s %10s %9s %9s %10s %10s\n' "${vlabel[$v]}" "$wall" "$start" "$pw" "$pc" \
		"$(calc '%.2fx' "$pw / $wn")" "$(calc '%.2fx' "$cu / $pc")" \
		"$(calc '%.2f' "$(med 3 "$f") / $calls")" "$(calc '%.2f' "$(med 4 "$f") / $calls")"
done
echo "  (start: a run of one call; ns/c: per call, start-up off; / normal: wall cost per call over"
echo "   calltrace record's; uftrace/: uftrace's CPU cost per call over this one's; B/c: bytes"
echo "   per call of the file's length and of its disk blocks)"

printf '\n== trace size after a long run: fib(%d) x %d, %d calls ==\n' "$n" "$long_repeat" "$long_calls"
for v in normal ring64m ring1m; do
	read -r wall cpu bytes disk < <(run "$v" "$long_repeat")
	printf '  %-22s %11s bytes (%6s MiB, on disk %6s MiB; wall %s ms, CPU %s ms)\n' "${vlabel[$v]}" \
		"$bytes" "$(calc '%.1f' "$bytes / 1048576")" "$(calc '%.1f' "$disk / 1048576")" \
		"$(calc '%.0f' "$wall / 1e6")" "$(calc '%.0f' "$cpu / 1e6")"
done
