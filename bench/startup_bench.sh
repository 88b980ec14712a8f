#!/usr/bin/env bash
# startup_bench.sh - the in-process engine (entries marked at start, each
# patched at its first call) in one run:
#   - per call, beside the -finstrument-functions hooks and `uftrace record
#     -P .`: fib at two lengths, so that what a process pays once (start,
#     marking, the end) cancels out: (cost(long) - cost(short)) / (calls(long)
#     - calls(short)), the untraced program's own time taken off the same
#     way; CPU time (user + system) and wall time;
#   - bytes a call in the trace, the same way (size difference / calls);
#   - start-up, three workloads of many short processes, plain, under
#     `calltrace record` (every process recorded) and under uftrace;
#     calltrace twice: a later recording (the module cache kept from an
#     earlier one: the lists, decodings and functions that ran) and a
#     first one (--no-cache: nothing known of the programs yet):
#     a shell script starting 100 `bash -c 'exit 0'`; `python3 -c pass`
#     started through a version manager's shim (bench/workloads/pyenv: a
#     model of pyenv's shim -> `pyenv exec` -> version-name, version-file,
#     latest, which, hooks, each a bash script running dirname, basename,
#     readlink, sed, grep, sort ...; about 70 processes, then the exec of
#     the python3 of the version the project asks for), both under
#     `uftrace record -P .`; and ninja, built from Debian's sources, running a build of 300
#     edges that starts 900 processes with -j2 (bench/startup_ninja.sh says
#     what it is), under `uftrace record` on a -pg build of the same ninja
#     (uftrace's default: it follows the children, records -pg code only).
# Runs take turns in every repetition; figures are medians.  Each measured
# recording writes a new file: the previous run's output is removed before,
# unmeasured, for calltrace and uftrace alike.
#
#   bash bench/startup_bench.sh         (run by bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/startup_bench.sh
#
# Environment: CALLTRACE (default build/bin/calltrace), CC (default gcc),
# BENCH_REPS (repetitions, default 5; quick: 3, the start-up workloads 2,
# ninja 1), BENCH_SRC (where ninja's sources and builds are kept, default
# build/bench-src).  The ninja row is skipped, with a line that says why,
# when its sources cannot be had (apt-get source needs a deb-src line,
# added as root, and the network).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
# shellcheck source=bench/debian_src.sh
. bench/debian_src.sh
# shellcheck source=bench/startup_ninja.sh
. bench/startup_ninja.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
SRC=$(realpath -m "${BENCH_SRC:-build/bench-src}")
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	reps=${BENCH_REPS:-3} start_reps=${BENCH_REPS:-2} ninja_reps=${BENCH_REPS:-1} short_n=24 long_n=28
else
	reps=${BENCH_REPS:-5} start_reps=$reps ninja_reps=$reps short_n=26 long_n=30
fi
[ -x "$CALLTRACE" ] || { echo "startup_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }
have_uftrace=0
command -v uftrace >/dev/null && have_uftrace=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# calltrace's lasting module cache: the bench's own, primed below.
export XDG_CACHE_HOME=$tmp/cache
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
# The system's python3 (not one behind a version manager of the machine).
bash bench/workloads/pyenv/setup.sh "$tmp/pyenv" "$(PATH=/usr/bin:/bin command -v python3)"
shim=(env "PATH=$tmp/pyenv/root/shims:/usr/bin:/bin" "PYENV_DIR=$tmp/pyenv/project/src/app" python3 -c pass)
have_ninja=0
ninja_paths
if why=$(ninja_obtain); then
	have_ninja=1
	ninja_workload "$tmp/ninja"
else
	echo "startup_bench: the ninja row is skipped: $why"
fi

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

# fresh OUTPUT...: the previous run's output gone before the next run is
# measured, for every tool alike: a recording writes a file of its own, as
# a user's does, and freeing the last one's blocks (7 MB for the shim) is
# no part of it.
fresh() { rm -rf "$@"; }

# A trace's size, for bytes a call.
size_of() { stat -c %s "$1" 2>/dev/null || echo nan; }

echo "== the in-process engine: per call and start-up (median of $reps; fib($short_n) and fib($long_n)) =="
# One recording of each start-up workload first, unmeasured: the later
# ones find the cache it left, as a user's second recording does.
"$CALLTRACE" record -q --replace -o "$tmp/start.trace" bash "$tmp/hundred.sh" >/dev/null 2>&1 || true
"$CALLTRACE" record -q --replace -o "$tmp/shim.trace" "${shim[@]}" >/dev/null 2>&1 || true
if [ "$have_ninja" = 1 ]; then
	ninja_clean "$tmp/ninja"
	"$CALLTRACE" record -q --replace -o "$tmp/ninja.trace" "$ninja_plain" -C "$tmp/ninja" -j2 \
		>/dev/null 2>&1 || true
fi
for ((r = 0; r < reps; r++)); do
	for n in "$short_n" "$long_n"; do
		run "plain.$n" taskset -c 0 "$tmp/fib.plain" "$n"
		fresh "$tmp/engine.$n.trace"
		run "engine.$n" taskset -c 0 "$CALLTRACE" record -q --engine patch \
			-o "$tmp/engine.$n.trace" "$tmp/fib.plain" "$n"
		fresh "$tmp/hooks.$n.trace"
		run "hooks.$n" taskset -c 0 "$CALLTRACE" record -q -o "$tmp/hooks.$n.trace" \
			"$tmp/fib.hooks" "$n"
		[ "$have_uftrace" = 0 ] || fresh "$tmp/uftrace.$n.data"
		[ "$have_uftrace" = 0 ] || run "uftrace.$n" taskset -c 0 uftrace record -P . --no-libcall \
			-d "$tmp/uftrace.$n.data" "$tmp/fib.plain" "$n"
	done
	[ "$r" -lt "$start_reps" ] || continue
	run start.plain bash "$tmp/hundred.sh"
	fresh "$tmp/start.trace"
	run start.calltrace "$CALLTRACE" record -q -o "$tmp/start.trace" bash "$tmp/hundred.sh"
	fresh "$tmp/start.first.trace"
	run start.first "$CALLTRACE" record -q --no-cache -o "$tmp/start.first.trace" \
		bash "$tmp/hundred.sh"
	[ "$have_uftrace" = 0 ] || fresh "$tmp/start.uftrace.data"
	[ "$have_uftrace" = 0 ] || run start.uftrace uftrace record -P . --no-libcall \
		-d "$tmp/start.uftrace.data" bash "$tmp/hundred.sh"
	run shim.plain "${shim[@]}"
	fresh "$tmp/shim.trace"
	run shim.calltrace "$CALLTRACE" record -q -o "$tmp/shim.trace" "${shim[@]}"
	fresh "$tmp/shim.first.trace"
	run shim.first "$CALLTRACE" record -q --no-cache -o "$tmp/shim.first.trace" "${shim[@]}"
	[ "$have_uftrace" = 0 ] || fresh "$tmp/shim.uftrace.data"
	[ "$have_uftrace" = 0 ] || run shim.uftrace uftrace record -P . --no-libcall \
		-d "$tmp/shim.uftrace.data" "${shim[@]}"
	if [ "$have_ninja" = 0 ] || [ "$r" -ge "$ninja_reps" ]; then
		continue
	fi
	ninja_clean "$tmp/ninja"
	run ninja.plain "$ninja_plain" -C "$tmp/ninja" -j2
	ninja_clean "$tmp/ninja"
	fresh "$tmp/ninja.trace"
	run ninja.calltrace "$CALLTRACE" record -q -o "$tmp/ninja.trace" "$ninja_plain" -C "$tmp/ninja" -j2
	ninja_clean "$tmp/ninja"
	fresh "$tmp/ninja.first.trace"
	run ninja.first "$CALLTRACE" record -q --no-cache -o "$tmp/ninja.first.trace" \
		"$ninja_plain" -C "$tmp/ninja" -j2
	ninja_clean "$tmp/ninja"
	[ "$have_uftrace" = 0 ] || fresh "$tmp/ninja.uftrace.data"
	[ "$have_uftrace" = 0 ] || run ninja.uftrace uftrace record -d "$tmp/ninja.uftrace.data" \
		"$ninja_pg" -C "$tmp/ninja" -j2
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
# ratio NAME TOOL COL: TOOL's time over the plain run's.
ratio() { calc '%.1fx' "$(col "$1.$2" "$3") / $(col "$1.plain" "$3")"; }
# procs TRACE: the processes calltrace recorded.
procs() { "$CALLTRACE" info "$1" 2>/dev/null | sed -n 's/^processes: *\([0-9]*\).*/\1/p' | head -n 1; }
row() { printf '  %-40s %7s %9s %7s %7s %11s %7s %9s\n' "$@"; }
row "start-up (wall s / CPU s)" plain calltrace first uftrace "calltrace x" "first x" "uftrace x"
for w in start shim ninja; do
	case $w in
	start) label="100 x bash -c 'exit 0' from a script" ;;
	shim) label="python3 -c pass, a pyenv-like shim" ;;
	ninja) label="ninja -j2, $(ninja_edges) edges, $(($(ninja_processes) - 1)) children" ;;
	esac
	[ "$w" != ninja ] || [ "$have_ninja" = 1 ] || continue
	for c in 1 2; do
		[ "$c" = 1 ] || label="  CPU"
		[ "$c" = 2 ] || label="$label, wall"
		row "$label" "$(secs "$w.plain" "$c")" "$(secs "$w.calltrace" "$c")" "$(secs "$w.first" "$c")" \
			"$(secs "$w.uftrace" "$c")" "$(ratio "$w" calltrace "$c")" "$(ratio "$w" first "$c")" \
			"$(ratio "$w" uftrace "$c")"
	done
done
echo "  (calltrace: a later recording, the module cache an earlier one left; first: --no-cache)"
echo "  (uftrace: record -P . --no-libcall for the first two; for ninja, record on its -pg build)"
ninja_procs=-
[ "$have_ninja" = 0 ] || ninja_procs=$(procs "$tmp/ninja.trace")
echo "  (processes in calltrace's traces, as \`calltrace info\` counts them: the script" \
	"$(procs "$tmp/start.trace"), the shim $(procs "$tmp/shim.trace"), ninja $ninja_procs;"
echo "   target: the script <= 4x plain)"
if [ "$have_ninja" = 1 ]; then
	printf "  ninja: calltrace's slowdown %s wall, %s CPU; uftrace's %s, %s (target: calltrace's below uftrace's)\n" \
		"$(ratio ninja calltrace 1)" "$(ratio ninja calltrace 2)" "$(ratio ninja uftrace 1)" "$(ratio ninja uftrace 2)"
fi
