#!/usr/bin/env bash
# run_bench.sh - recording overhead, trace size, memory and analysis speed of
# calltrace, side by side with uftrace and the empty-hook floor, in one run.
#
#   bash bench/run_bench.sh          (what `make bench` runs; a few minutes)
#   BENCH_QUICK=1 bash bench/run_bench.sh     smaller sizes, fewer repetitions
#
# Environment: CALLTRACE (default build/bin/calltrace), RUNTIME (default
# build/lib/libcalltrace.so, exported to `calltrace record` as
# CALLTRACE_RUNTIME), CC (default gcc), BENCH_REPS (repetitions of the
# recording runs).  Runs are interleaved and repeated; figures are medians.
# bench/README.md explains every figure.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
# A path (made absolute: the runs happen elsewhere) or a command in PATH.
resolve() { case $1 in */*) realpath -m "$1" ;; *) command -v "$1" || echo "$1" ;; esac; }
CALLTRACE=$(resolve "${CALLTRACE:-build/bin/calltrace}")
RUNTIME=$(realpath -m "${RUNTIME:-build/lib/libcalltrace.so}")
CC=${CC:-gcc}
export CALLTRACE RUNTIME CALLTRACE_RUNTIME="$RUNTIME"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	mode=quick
	reps=3 fib_n=30 many_rounds=150 threads=4 thread_n=28 mem_reps=2 ana_reps=1
else
	mode=full
	reps=7 fib_n=32 many_rounds=500 threads=4 thread_n=30 mem_reps=3 ana_reps=3
fi
reps=${BENCH_REPS:-$reps}

command -v uftrace >/dev/null || { echo "run_bench: uftrace is needed (make deps)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# calltrace's lasting module cache: the run's own, not the user's.
export XDG_CACHE_HOME=$tmp/cache
bin=$tmp/bin
out=$tmp/out
mkdir -p "$bin" "$out"

# ---------------------------------------------------------------- helpers

# What is running now, on one line of the terminal (nothing when stderr is not one).
progress() { [ ! -t 2 ] || printf '\r%-78.78s' "$*" >&2; }
progress_done() { [ ! -t 2 ] || printf '\r%-78s\r' "" >&2; }

# "VALUE UNIT", or "n/a" when the value is missing.
unit() { case "$1" in *nan* | *n/a*) echo "n/a" ;; *) echo "$1${2:+ $2}" ;; esac; }




# PASS when the awk condition holds, MISS when not, n/a when a value is missing.
mark() {
	case "$1" in *nan* | *n/a*) echo "n/a"; return ;; esac
	local rc=0
	awk "BEGIN { exit !($1) }" 2>/dev/null || rc=$?
	case $rc in 0) echo PASS ;; 1) echo MISS ;; *) echo "n/a" ;; esac
}

checks=()
# check FIGURE MEASURED TARGET CONDITION: prints one line of a checks table.
check() {
	local m
	m=$(mark "$4")
	checks+=("$m  $1")
	printf '  %-50s %-12s %-14s %s\n' "$1" "$2" "$3" "$m"
}
check_header() {
	printf '  %-50s %-12s %-14s %s\n' "target (DESIGN.md)" "measured" "target" "mark"
}

file_size() { stat -c %s "$1" 2>/dev/null || echo 0; }
dir_size() { du -sb "$1" 2>/dev/null | cut -f1 || echo 0; }

# ---------------------------------------------------------------- build

progress "building the workloads"
opt=(-std=gnu11 -O2 -g -Wall -Wextra)
"$CC" "${opt[@]}" -o "$bin/run_measure" bench/run_measure.c
"$CC" "${opt[@]}" -fPIC -shared -o "$bin/floor_hooks.so" bench/floor_hooks.c -lpthread
"$CC" "${opt[@]}" -fPIC -shared -o "$bin/rss_probe.so" bench/rss_probe.c
bash bench/workloads/gen_many_lib.sh > "$tmp/many_lib.c"
for kind in plain instr; do
	flags=("${opt[@]}")
	[ $kind = plain ] || flags+=(-finstrument-functions)
	"$CC" "${flags[@]}" -o "$bin/fib.$kind" bench/workloads/fib.c
	"$CC" "${flags[@]}" -o "$bin/threads.$kind" bench/workloads/fib_threads.c -lpthread
	mkdir -p "$bin/many.$kind"
	"$CC" "${flags[@]}" -fPIC -shared -o "$bin/many.$kind/libbenchmany.so" "$tmp/many_lib.c"
	# shellcheck disable=SC2016 # $ORIGIN is for the linker
	"$CC" "${flags[@]}" -o "$bin/many.$kind/many" bench/workloads/many_main.c \
		-L"$bin/many.$kind" -lbenchmany -Wl,-rpath,'$ORIGIN'
done
measure=$bin/run_measure

# ---------------------------------------------------------------- recording

# Each workload runs at its full size ("run") and at a size that makes next
# to no calls ("start"): the difference sets the start-up cost of a tracer
# (loading, first window, last flush) apart from the cost of a call.
workloads=(fib many threads)
variants=(plain floor calltrace calltrace_off uftrace)
declare -A args label calls avail
args[fib.run]="$fib_n 1" args[fib.start]="0 1" label[fib]="fib($fib_n)"
args[many.run]="$many_rounds" args[many.start]="0"
label[many]="many: 400 functions in a .so, $many_rounds rounds"
args[threads.run]="$threads $thread_n" args[threads.start]="$threads 0"
label[threads]="$threads threads x fib($thread_n)"
declare -A vlabel=([plain]="plain -O2" [floor]="floor (empty hooks)" [calltrace]="calltrace record"
	[calltrace_off]="calltrace, START=off" [uftrace]="uftrace record")

binary() { # binary WORKLOAD plain|instr
	if [ "$1" = many ]; then echo "$bin/many.$2/many"; else echo "$bin/$1.$2"; fi
}

# run_one WORKLOAD VARIANT run|start: runs it once and appends
# "ELAPSED TREE_RSS CPU BYTES PROGRAM_RSS" to $out/WORKLOAD.VARIANT.SIZE.res.
# Returns 1 (after showing the end of the output) when the run fails.
run_one() {
	local w=$1 v=$2 size=$3 base=$out/$1.$2 line bytes=0 prog_rss a
	local rec=$base.$size # recordings: .trace, .data
	local exe preload=$bin/rss_probe.so
	read -ra a <<< "${args[$w.$size]}"
	exe=$(binary "$w" instr)
	[ "$v" != plain ] || exe=$(binary "$w" plain)
	[ "$v" != floor ] || preload=$bin/floor_hooks.so:$preload
	local cmd=(BENCH_RSS_FILE="$base.rss" BENCH_COUNT_FILE="$base.$size.count" LD_PRELOAD="$preload")
	case $v in
	plain | floor) cmd+=("$exe" "${a[@]}") ;;
	calltrace) cmd+=("$CALLTRACE" record -q --replace -o "$rec.trace" "$exe" "${a[@]}") ;;
	calltrace_off) cmd+=(CALLTRACE_START=off "$CALLTRACE" record -q --replace -o "$rec.trace" "$exe" "${a[@]}") ;;
	uftrace) cmd+=(uftrace record -d "$rec.data" "$exe" "${a[@]}") ;;
	esac
	rm -rf "$rec.trace" "$rec.data" "$base.rss"
	if ! line=$("$measure" "$base.log" "$base.log" "${cmd[@]}" 2>>"$base.log"); then
		progress_done
		echo "run_bench: $w ($size) under ${vlabel[$v]} failed; the end of its output:" >&2
		tail -n 5 "$base.log" | sed 's/^/    /' >&2
		return 1
	fi
	case $v in
	calltrace | calltrace_off) bytes=$(file_size "$rec.trace") ;;
	uftrace) bytes=$(dir_size "$rec.data") ;;
	esac
	prog_rss=$(awk -v exe="$exe" '$2 == exe && $1 > m { m = $1 } END { print m + 0 }' "$base.rss" 2>/dev/null || echo 0)
	# Keep only the fib recordings (the analysis reads them): disk space.
	if [ "$w" != fib ] || [ "$size" = start ]; then
		rm -rf "$rec.trace" "$rec.data"
	fi
	echo "$line $bytes $prog_rss" | awk '{ print $1, $2, $3 + $4, $5, $6 }' >> "$base.$size.res"
}

# Warm-up: one run of each, not counted; finds what is available and counts
# the calls exactly with the floor hooks.
for w in "${workloads[@]}"; do
	for v in "${variants[@]}"; do
		progress "warm-up: ${label[$w]} under ${vlabel[$v]}"
		avail[$w.$v]=1
		run_one "$w" "$v" run && run_one "$w" "$v" start || avail[$w.$v]=0
		rm -f "$out/$w.$v.run.res" "$out/$w.$v.start.res"
	done
	for size in run start; do
		calls[$w.$size]=$(awk '{ n = $2 } END { print n + 0 }' "$out/$w.floor.$size.count" 2>/dev/null || echo 0)
	done
	if [ "${calls[$w.run]}" -le "${calls[$w.start]}" ]; then
		echo "run_bench: the floor hooks counted no calls in $w" >&2
		exit 1
	fi
done

for ((r = 1; r <= reps; r++)); do
	for w in "${workloads[@]}"; do
		# Rotate the order from one repetition to the next.
		n=${#variants[@]}
		for ((i = 0; i < n; i++)); do
			v=${variants[$(((i + r) % n))]}
			[ "${avail[$w.$v]}" = 1 ] || continue
			progress "repetition $r/$reps: ${label[$w]} under ${vlabel[$v]}"
			run_one "$w" "$v" run && run_one "$w" "$v" start || avail[$w.$v]=0
		done
	done
done
progress_done

# The floor counts must agree run after run.
for w in "${workloads[@]}"; do
	for size in run start; do
		if [ "$(sort -u "$out/$w.floor.$size.count" | wc -l)" -ne 1 ]; then
			echo "run_bench: warning: the call count of $w ($size) varies between runs:" \
				"$(sort -u "$out/$w.floor.$size.count" | tr '\n' ' ')" >&2
		fi
	done
done

cpu_model=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "calltrace benchmarks ($mode run: $reps interleaved repetitions, medians)"
echo "machine: ${cpu_model:-unknown CPU}, $(nproc) CPUs, Linux $(uname -r)"
echo "compiler: $("$CC" --version | head -n 1); workloads built with -O2 -g, traced ones" \
	"with -finstrument-functions"
echo "uftrace: $(uftrace --version 2>&1 | head -n 1 | cut -d' ' -f1-2)"
echo

row() { printf '  %-21s %9s %8s %8s %8s %8s %8s %9s %9s\n' "$@"; }
mib() { unit "$(calc '%.1f' "$1 / 1024")" MiB; }

declare -A ovh hot cpu_ovh bpc rss
for w in "${workloads[@]}"; do
	c=${calls[$w.run]}
	dc=$((c - ${calls[$w.start]}))
	t0=$(med 1 "$out/$w.plain.run.res")
	s0=$(med 1 "$out/$w.plain.start.res")
	cpu0=$(med 3 "$out/$w.plain.run.res")
	echo "== recording: ${label[$w]}, $c calls =="
	row tracer "wall ms" "start ms" ns/call "hot ns" "cpu ns" bytes/call "RSS" "tree RSS"
	for v in "${variants[@]}"; do
		f=$out/$w.$v.run.res
		t=$(med 1 "$f")
		st=$(med 1 "$out/$w.$v.start.res")
		ovh[$w.$v]=$(calc '%.1f' "($t - $t0) / $c")
		hot[$w.$v]=$(calc '%.1f' "(($t - $st) - ($t0 - $s0)) / $dc")
		cpu_ovh[$w.$v]=$(calc '%.1f' "($(med 3 "$f") - $cpu0) / $c")
		bpc[$w.$v]=$(calc '%.2f' "$(med 4 "$f") / $c")
		rss[$w.$v]=$(med 5 "$f")
		if [ "${avail[$w.$v]}" != 1 ]; then
			row "${vlabel[$v]}" "not run" - - - - - - -
			ovh[$w.$v]=nan hot[$w.$v]=nan cpu_ovh[$w.$v]=nan bpc[$w.$v]=nan rss[$w.$v]=nan
		elif [ "$v" = plain ]; then
			row "${vlabel[$v]}" "$(calc '%.1f' "$t / 1e6")" - - - - - \
				"$(mib "${rss[$w.$v]}")" "$(mib "$(med 2 "$f")")"
		else
			b=${bpc[$w.$v]}
			[ "$v" != floor ] || b=-
			row "${vlabel[$v]}" "$(calc '%.1f' "$t / 1e6")" "$(calc '%.1f' "($st - $s0) / 1e6")" \
				"${ovh[$w.$v]}" "${hot[$w.$v]}" "${cpu_ovh[$w.$v]}" "$b" \
				"$(mib "${rss[$w.$v]}")" "$(mib "$(med 2 "$f")")"
		fi
	done
	ct=${ovh[$w.calltrace]} uf=${ovh[$w.uftrace]}
	echo
	check_header
	check "$w: overhead per call <= uftrace/3.5" "$(unit "$ct" ns)" \
		"<= $(unit "$(calc '%.1f' "$uf / 3.5")" ns)" "$ct <= $uf / 3.5"
	check "$w: uftrace / calltrace overhead" "$(calc '%.2fx' "$uf / $ct")" ">= 3.5x" "$uf / $ct >= 3.5"
	check "$w: trace bytes per call" "$(unit "${bpc[$w.calltrace]}")" "<= 6" "${bpc[$w.calltrace]} <= 6"
	check "$w: disabled start <= floor + 1 ns (hot)" "$(unit "${hot[$w.calltrace_off]}" ns)" \
		"<= $(unit "$(calc '%.1f' "${hot[$w.floor]} + 1")" ns)" \
		"${hot[$w.calltrace_off]} <= ${hot[$w.floor]} + 1"
	# Wall time lets uftrace's writer thread work on another core for free.
	printf '  %-50s %-12s %s\n' "(by CPU time: uftrace / calltrace overhead)" \
		"$(calc '%.2fx' "${cpu_ovh[$w.uftrace]} / ${cpu_ovh[$w.calltrace]}")" "no target"
	echo
done

# Threads: the cost of a call must not grow when threads record side by side.
# Compared in CPU time per call: on a machine with fewer cores than threads
# the wall time shrinks or grows with scheduling, the work done does not.
echo "== threads: overhead per call, $threads threads beside 1 (CPU time per call) =="
check_header
one=${cpu_ovh[fib.calltrace]} many_t=${cpu_ovh[threads.calltrace]}
check "$threads threads <= 1.5x single thread" "$(unit "$many_t" ns)" \
	"<= $(unit "$(calc '%.1f' "$one * 1.5")" ns)" "$many_t <= $one * 1.5"
echo

# ---------------------------------------------------------------- memory

# The same fib, 1x and 10x as long: the traced program's peak RSS must not grow.
echo "== memory: peak RSS of the traced fib($fib_n), 1x and 10x the run length =="
args[fib.x1]="$fib_n 1" args[fib.x10]="$fib_n 10"
if [ "${avail[fib.calltrace]}" = 1 ]; then
	for ((r = 1; r <= mem_reps; r++)); do
		for x in x1 x10; do
			progress "memory $r/$mem_reps: fib($fib_n) $x"
			run_one fib calltrace $x || break 2
		done
	done
	progress_done
fi
mem1=$(med 5 "$out/fib.calltrace.x1.res") mem10=$(med 5 "$out/fib.calltrace.x10.res")
printf '  %-22s %14s %10s\n' "run" "calls" "RSS"
printf '  %-22s %14s %10s\n' "plain, 1x" "${calls[fib.run]}" "$(mib "${rss[fib.plain]}")"
printf '  %-22s %14s %10s\n' "calltrace record, 1x" "${calls[fib.run]}" "$(mib "$mem1")"
printf '  %-22s %14s %10s\n' "calltrace record, 10x" "$(((${calls[fib.run]} - 1) * 10 + 1))" "$(mib "$mem10")"
echo
check_header
check "RSS at 10x run length ~ RSS at 1x" "$(mib "$mem10")" "<= $(mib "$(calc '%f' "$mem1 * 1.1")")" \
	"$mem10 <= $mem1 * 1.1"
for w in fib threads; do
	nthr=1
	[ "$w" = fib ] || nthr=$((threads + 1))
	extra=$(calc '%.1f' "(${rss[$w.calltrace]} - ${rss[$w.plain]}) / 1024")
	check "$w: RSS above plain <= 4 MiB a thread ($nthr)" "$(unit "$extra" MiB)" \
		"<= $((4 * nthr)) MiB" "$extra <= 4 * $nthr"
done
echo

# ---------------------------------------------------------------- analysis

events=$((2 * ${calls[fib.run]}))
echo "== analysis speed: the fib($fib_n) recording, $events events (enter + exit) =="
trace=$out/fib.calltrace.run.trace
udata=$out/fib.uftrace.run.data
have_flame=0
"$CALLTRACE" flame --help >/dev/null 2>&1 && have_flame=1
# name | command (run with stdout to /dev/null)
ana_names=("calltrace replay" "calltrace report" "calltrace flame" "calltrace json"
	"uftrace replay" "uftrace report" "uftrace dump --flame-graph" "uftrace dump --chrome")
ana_cmds=("$CALLTRACE replay $trace" "$CALLTRACE report $trace"
	"$CALLTRACE flame -o /dev/null $trace" "$CALLTRACE json -o /dev/null $trace"
	"uftrace replay -d $udata" "uftrace report -d $udata"
	"uftrace dump --flame-graph -d $udata" "uftrace dump --chrome -d $udata")
declare -A ana_ok
for ((i = 0; i < ${#ana_names[@]}; i++)); do
	ana_ok[$i]=1
	case ${ana_names[$i]} in
	calltrace*) [ "${avail[fib.calltrace]}" = 1 ] || ana_ok[$i]=0 ;;
	uftrace*) [ "${avail[fib.uftrace]}" = 1 ] || ana_ok[$i]=0 ;;
	esac
	[ "${ana_names[$i]}" != "calltrace flame" ] || [ $have_flame = 1 ] || ana_ok[$i]=0
done
for ((r = 1; r <= ana_reps; r++)); do
	for ((i = 0; i < ${#ana_names[@]}; i++)); do
		[ "${ana_ok[$i]}" = 1 ] || continue
		progress "analysis $r/$ana_reps: ${ana_names[$i]}"
		read -ra c <<< "${ana_cmds[$i]}"
		if line=$("$measure" /dev/null "$out/ana.err" "${c[@]}" 2>>"$out/ana.err"); then
			echo "$line" >> "$out/ana$i.res"
		else
			progress_done
			echo "run_bench: ${ana_names[$i]} failed:" >&2
			tail -n 5 "$out/ana.err" | sed 's/^/    /' >&2
			ana_ok[$i]=0
		fi
	done
done
progress_done
declare -A eps secs
for ((i = 0; i < ${#ana_names[@]}; i++)); do
	t=$(med 1 "$out/ana$i.res")
	[ "${ana_ok[$i]}" = 1 ] || t=nan
	secs[$i]=$(calc '%.2f' "$t / 1e9")
	eps[$i]=$(calc '%.1f' "$events / ($t / 1e9) / 1e6")
done
printf '  %-18s %8s %10s   %-26s %8s %10s %8s\n' command seconds "M ev/s" "uftrace beside it" \
	seconds "M ev/s" ratio
for ((i = 0; i < 4; i++)); do
	j=$((i + 4))
	printf '  %-18s %8s %10s   %-26s %8s %10s %8s\n' "${ana_names[$i]}" "${secs[$i]}" "${eps[$i]}" \
		"${ana_names[$j]}" "${secs[$j]}" "${eps[$j]}" "$(calc '%.2fx' "${eps[$i]} / ${eps[$j]}")"
done
echo
check_header
# DESIGN.md sets targets for replay, report and flame; json is shown for
# information (it writes some 200 bytes a call, so it is bound by output).
for ((i = 0; i < 3; i++)); do
	j=$((i + 4))
	check "${ana_names[$i]} >= 20 M events/s" "$(unit "${eps[$i]}" M/s)" ">= 20 M/s" "${eps[$i]} >= 20"
	check "${ana_names[$i]} >= 3x ${ana_names[$j]}" "$(calc '%.2fx' "${eps[$i]} / ${eps[$j]}")" \
		">= 3x" "${eps[$i]} >= 3 * ${eps[$j]}"
done
echo

# Analysis memory: bounded by the depth of the calls, not by the length of
# the trace (the 10x recording of the memory runs).
echo "== analysis memory: peak RSS of calltrace report on the 1x and 10x recordings =="
ana1=nan ana10=nan
if [ -f "$out/fib.calltrace.x10.trace" ] && [ -f "$trace" ]; then
	progress "analysis memory: report of the 1x and 10x recordings"
	line=$("$measure" /dev/null "$out/ana.err" "$CALLTRACE" report "$trace" 2>>"$out/ana.err") &&
		ana1=$(echo "$line" | cut -d' ' -f2)
	line=$("$measure" /dev/null "$out/ana.err" "$CALLTRACE" report "$out/fib.calltrace.x10.trace" 2>>"$out/ana.err") &&
		ana10=$(echo "$line" | cut -d' ' -f2)
	progress_done
fi
printf '  %-22s %10s\n' "report, 1x" "$(mib "$ana1")" "report, 10x" "$(mib "$ana10")"
echo
check_header
check "report RSS at 10x recording ~ at 1x" "$(mib "$ana10")" "<= $(mib "$(calc '%f' "$ana1 * 1.1")")" \
	"$ana10 <= $ana1 * 1.1"
echo

# ---------------------------------------------------------------- summary

pass=0 miss=0 na=0
for c in "${checks[@]}"; do
	case $c in PASS*) pass=$((pass + 1)) ;; MISS*) miss=$((miss + 1)) ;; *) na=$((na + 1)) ;; esac
done
echo "== summary: $pass PASS, $miss MISS, $na n/a =="
for c in "${checks[@]}"; do
	case $c in PASS*) ;; *) echo "  $c" ;; esac
done
echo

if [ -f bench/dynamic_bench.sh ]; then
	rm -rf "$out"
	bash bench/dynamic_bench.sh
fi

# The in-process engine: per call beside the hooks and uftrace, start-up.
if [ -f bench/startup_bench.sh ]; then
	echo
	bash bench/startup_bench.sh
fi

if [ -f bench/args_bench.sh ]; then
	bash bench/args_bench.sh
fi

# The flight recorder (record --ring) beside a normal recording and uftrace.
if [ -f bench/ring_bench.sh ]; then
	bash bench/ring_bench.sh
fi

if [ -f bench/libcall_bench.sh ]; then
	bash bench/libcall_bench.sh
fi

# A system call under record --syscalls beside strace -f and perf trace.
if [ -f bench/kernel_bench.sh ]; then
	echo
	bash bench/kernel_bench.sh || echo "kernel_bench: not run here (see above)"
fi

if [ -f bench/real_bench.sh ]; then
	echo
	bash bench/real_bench.sh
fi

# A real program's library calls beside uftrace's, and the slowdown of
# each (builds the SQLite shell from Debian's sources the first time).
if [ -f bench/world_sqlite.sh ]; then
	echo
	bash bench/world_sqlite.sh || echo "world_sqlite: not run here (see above)"
fi
