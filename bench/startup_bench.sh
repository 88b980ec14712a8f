#!/usr/bin/env bash
# startup_bench.sh - the in-process engine (entries marked at start, each
# patched at its first call) in one run:
#   - per call, beside the -finstrument-functions hooks and `uftrace record
#     -P .`: fib at two lengths, so that what a process pays once (start,
#     marking, the end) cancels out: (cost(long) - cost(short)) / (calls(long)
#     - calls(short)), the untraced program's own time taken off the same
#     way; CPU time (user + system) and wall time;
#   - bytes a call in the trace, the same way (size difference / calls);
#   - start-up: a shell script starting 100 `bash -c 'exit 0'`, and
#     `python3 -c pass` started through a shell shim (a few small processes,
#     then exec), plain, under `calltrace record` (every process recorded)
#     and under `uftrace record -P .`.
# Runs take turns in every repetition; figures are medians.
#
#   bash bench/startup_bench.sh         (run by bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/startup_bench.sh
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
	reps=${BENCH_REPS:-3} short_n=24 long_n=28
else
	reps=${BENCH_REPS:-5} short_n=26 long_n=30
fi
[ -x "$CALLTRACE" ] || { echo "startup_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
opt=(-std=gnu11 -O2 -g)
"$CC" "${opt[@]}" -o "$tmp/run_measure" bench/run_measure.c
"$CC" "${opt[@]}" -o "$tmp/fib.plain" bench/workloads/fib.c
"$CC" "${opt[@]}" -finstrument-functions -o "$tmp/fib.hooks" bench/workloads/fib.c
measure=$tmp/run_measure

# The start-up workloads.
cat >"$tmp/hundred.sh" <<'SH'
i=0
while [ $i -lt 100 ]; do
	bash -c 'exit 0'
	i=$((i + 1))
done
SH
mkdir -p "$tmp/shims"
echo 3 >"$tmp/shims/version"
cat >"$tmp/shims/python3" <<'SH'
#!/bin/sh
# A version manager's shim: find the version and the real program, then exec it.
here=$(dirname "$0")
version=$(cat "$here/version")
name=$(basename "$0" 3)
case $(uname -s) in Linux) ;; esac
real=$(PATH=/usr/bin:/bin command -v "$name$version")
exec "$real" "$@"
SH
chmod +x "$tmp/shims/python3"

# fib(n) makes 2 * fib(n + 1) - 1 calls.
calls_of() { awk -v n="$1" 'BEGIN { a = 0; b = 1; for (i = 0; i < n + 1; i++) { t = a + b; a = b; b = t } print 2 * a - 1 }'; }
short_calls=$(calls_of "$short_n")
long_calls=$(calls_of "$long_n")

# run NAME COMMAND...: one measured run; "WALL_NS CPU_NS" appended to
# $tmp/NAME.times ("nan nan" when it failed).
run() {
	local name=$1 line
	shift
	if line=$("$measure" /dev/null "$tmp/$name.err" "$@" 2>>"$tmp/$name.err"); then
		echo "$line" | awk '{ print $1, $3 + $4 }' >>"$tmp/$name.times"
	else
		echo "nan nan" >>"$tmp/$name.times"
	fi
}

# A trace's size, for bytes a call.
size_of() { stat -c %s "$1" 2>/dev/null || echo nan; }

echo "== the in-process engine: per call and start-up (median of $reps; fib($short_n) and fib($long_n)) =="
for ((r = 0; r < reps; r++)); do
	for n in "$short_n" "$long_n"; do
		run "plain.$n" taskset -c 0 "$tmp/fib.plain" "$n"
		run "engine.$n" taskset -c 0 "$CALLTRACE" record -q --replace --engine patch \
			-o "$tmp/engine.$n.trace" "$tmp/fib.plain" "$n"
		run "hooks.$n" taskset -c 0 "$CALLTRACE" record -q --replace -o "$tmp/hooks.$n.trace" \
			"$tmp/fib.hooks" "$n"
		[ "$have_uftrace" = 0 ] || run "uftrace.$n" taskset -c 0 uftrace record -P . --no-libcall \
			-d "$tmp/uftrace.$n.data" "$tmp/fib.plain" "$n"
	done
	run start.plain bash "$tmp/hundred.sh"
	run start.calltrace "$CALLTRACE" record -q --replace -o "$tmp/start.trace" bash "$tmp/hundred.sh"
	[ "$have_uftrace" = 0 ] || run start.uftrace uftrace record -P . --no-libcall \
		-d "$tmp/start.uftrace.data" bash "$tmp/hundred.sh"
	run shim.plain "$tmp/shims/python3" -c pass
	run shim.calltrace "$CALLTRACE" record -q --replace -o "$tmp/shim.trace" "$tmp/shims/python3" -c pass
	[ "$have_uftrace" = 0 ] || run shim.uftrace uftrace record -P . --no-libcall \
		-d "$tmp/shim.uftrace.data" "$tmp/shims/python3" -c pass
done

# col NAME COL: the median of column COL (1 wall, 2 CPU) of NAME's runs.
col() { med "$2" "$tmp/$1.times"; }

# per_call TOOL COL: ns a call above the untraced program.
per_call() {
	calc '%.1f' "(($(col "$1.$long_n" "$2") - $(col "$1.$short_n" "$2")) - \
($(col "plain.$long_n" "$2") - $(col "plain.$short_n" "$2"))) / ($long_calls - $short_calls)"
}

# A figure only when every call was recorded.
engine_calls=$("$CALLTRACE" report "$tmp/engine.$long_n.trace" 2>/dev/null | awk '$NF == "fib" { print $5 }')
hooks_calls=$("$CALLTRACE" report "$tmp/hooks.$long_n.trace" 2>/dev/null | awk '$NF == "fib" { print $5 }')
bytes() { calc '%.2f' "($(size_of "$tmp/$1.$long_n.trace") - $(size_of "$tmp/$1.$short_n.trace")) / ($long_calls - $short_calls)"; }
engine_cpu=$(per_call engine 2) engine_wall=$(per_call engine 1) engine_bytes=$(bytes engine)
hooks_cpu=$(per_call hooks 2) hooks_wall=$(per_call hooks 1) hooks_bytes=$(bytes hooks)
[ "${engine_calls:-0}" = "$long_calls" ] || engine_cpu=nan engine_wall=nan
[ "${hooks_calls:-0}" = "$long_calls" ] || hooks_cpu=nan hooks_wall=nan
uf_cpu=nan uf_wall=nan
if [ "$have_uftrace" = 1 ]; then
	got=$(uftrace report -d "$tmp/uftrace.$long_n.data" 2>/dev/null | awk '$NF == "fib" { print $(NF-1) }')
	if [ "${got:-0}" = "$long_calls" ]; then
		uf_cpu=$(per_call uftrace 2) uf_wall=$(per_call uftrace 1)
	fi
fi
printf '  %-42s %12s %12s %14s\n' "per call (taskset -c 0)" "CPU ns" "wall ns" "bytes a call"
printf '  %-42s %12s %12s %14s\n' "calltrace record --engine patch" "$engine_cpu" "$engine_wall" "$engine_bytes"
printf '  %-42s %12s %12s %14s\n' "calltrace record, -finstrument-functions" "$hooks_cpu" "$hooks_wall" "$hooks_bytes"
printf '  %-42s %12s %12s %14s\n' "uftrace record -P . --no-libcall" "$uf_cpu" "$uf_wall" "-"
printf '  engine / hooks: %s CPU, %s wall (target <= 2x); bytes a call %s (target <= 4)\n' \
	"$(calc '%.2fx' "$engine_cpu / $hooks_cpu")" "$(calc '%.2fx' "$engine_wall / $hooks_wall")" "$engine_bytes"
echo

secs() { calc '%.2f' "$(col "$1" "$2") / 1e9"; }
printf '  %-42s %10s %10s %10s %10s\n' "start-up (wall s / CPU s)" "plain" "calltrace" "uftrace -P ." "calltrace/plain"
for w in start shim; do
	label="100 x bash -c 'exit 0' from a script"
	[ "$w" = start ] || label="python3 -c pass through a shell shim"
	printf '  %-42s %10s %10s %10s %10s\n' "$label, wall" "$(secs "$w.plain" 1)" "$(secs "$w.calltrace" 1)" \
		"$(secs "$w.uftrace" 1)" "$(calc '%.1fx' "$(col "$w.calltrace" 1) / $(col "$w.plain" 1)")"
	printf '  %-42s %10s %10s %10s %10s\n' "  CPU" "$(secs "$w.plain" 2)" "$(secs "$w.calltrace" 2)" \
		"$(secs "$w.uftrace" 2)" "$(calc '%.1fx' "$(col "$w.calltrace" 2) / $(col "$w.plain" 2)")"
done
procs=$("$CALLTRACE" info "$tmp/start.trace" 2>/dev/null | sed -n 's/^processes: *\([0-9]*\).*/\1/p' | head -n 1)
echo "  (the 100-bash script under calltrace: ${procs:-?} processes recorded; target <= 4x plain)"
