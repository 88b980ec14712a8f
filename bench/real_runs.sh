# shellcheck shell=bash disable=SC2154 # sourced by real_bench.sh, which sets its variables
# real_runs.sh - runs and tables of bench/real_bench.sh (sourced by it):
# one program plain, under `calltrace record` and under `uftrace record -P .`
# (with and without library calls), the calls each recorded, its output
# checked against the plain run's, and a table of the figures.

variants=(plain calltrace uftrace uftrace_lib)
declare -A vlabel=([plain]="plain" [calltrace]="calltrace record"
	[uftrace]="uftrace -P . --no-libcall" [uftrace_lib]="uftrace -P .")


# run_variant PROGRAM VARIANT run|start EXE: runs it once; appends
# "WALL_NS CPU_NS" to $tmp/PROGRAM.VARIANT.SIZE.res; leaves its output in
# .out, its stderr in .err and its recording in .trace or .data.
run_variant() {
	local p=$1 v=$2 size=$3 exe=$4 base=$tmp/$1.$2.$3 line verbose=()
	local -a wargs cmd
	"workload_$p" "$size"
	# The start-up run says what was patched; the timed runs stay quiet.
	[ "$size" = run ] || verbose=(-v)
	case $v in
	plain) cmd=("$exe") ;;
	calltrace) cmd=("$CALLTRACE" record -q --replace "${verbose[@]}" -o "$base.trace" "$exe") ;;
	uftrace) cmd=(uftrace record "${verbose[@]}" -P . --no-libcall -d "$base.data" "$exe") ;;
	uftrace_lib) cmd=(uftrace record "${verbose[@]}" -P . -d "$base.data" "$exe") ;;
	esac
	rm -rf "$base.trace" "$base.data"
	# shellcheck disable=SC2094 # run_measure appends its own complaints to the program's stderr
	if ! line=$("$measure" "$base.out" "$base.err" "${cmd[@]}" "${wargs[@]}" 2>>"$base.err"); then
		progress_done
		echo "  $p under ${vlabel[$v]} failed; the end of its output:"
		tail -n 5 "$base.err" | sed 's/^/    /'
		return 1
	fi
	echo "$line" | awk '{ print $1, $3 + $4 }' >> "$base.res"
}

# Calls a recording holds, from the Calls column of its report (the fifth
# field of a line, in calltrace's and uftrace's alike; uftrace's lines of
# kernel events, "linux:schedule (pre-empted)", are left out); the calls of
# each function go to .fn, sorted by name.
recorded_calls() {
	local base=$tmp/$1.$2.run
	case $2 in
	calltrace) "$CALLTRACE" report "$base.trace" ;;
	uftrace*) uftrace report -d "$base.data" ;;
	esac 2>/dev/null | awk 'NR > 2 && $5 ~ /^[0-9]+$/ && $NF !~ /[():]/ { print $NF, $5 }' |
		LC_ALL=C sort > "$base.fn"
	awk '{ n += $2 } END { print n + 0 }' "$base.fn"
}

# The calls one tracer recorded in functions the other did not record (not
# patched there): "CALLS in N functions (NAME CALLS, ...)".
calls_only_in() { # calls_only_in PROGRAM VARIANT OTHER_VARIANT
	LC_ALL=C join -a 1 -e 0 -o 0,1.2,2.2 "$tmp/$1.$2.run.fn" "$tmp/$1.$3.run.fn" |
		awk '$3 == 0 { print $2, $1 }' | sort -rn |
		awk '{ n += $1; f++; if (f <= 3) top = top (f > 1 ? ", " : "") $2 " " $1 }
			END { printf "%d calls in %d functions%s\n", n, f, f ? " (" top (f > 3 ? ", ..." : "") ")" : "" }'
}

recording_bytes() {
	local base=$tmp/$1.$2.run
	case $2 in
	calltrace) stat -c %s "$base.trace" ;;
	uftrace*) du -sb "$base.data" | cut -f1 ;;
	esac
}

# "PATCHED/TOTAL" functions of the executable, from the start-up run's -v.
patched_count() {
	local err=$tmp/$1.$2.start.err
	case $2 in
	calltrace) sed -n 's/.*in-process engine: \([0-9]*\) of \([0-9]*\) functions patched.*/\1\/\2/p' "$err" | head -n 1 ;;
	uftrace*) awk '/patched all \(/ { gsub(/[()]/, "", $4); print $4 "/" $4; exit }
		$2 == "total:" { t = $3 } $2 == "patched:" { print $3 "/" t; exit }' "$err" ;;
	esac
}

# True when the traced run printed what the plain run printed.
same_output() { cmp -s "$tmp/$1.plain.run.out" "$tmp/$1.$2.run.out"; }

run_all() { # run_all PROGRAM EXE
	local p=$1 exe=$2 v r i n=${#variants[@]}
	for v in "${variants[@]}"; do
		progress "$p: start-up run under ${vlabel[$v]}"
		avail[$v]=1
		run_variant "$p" "$v" start "$exe" || avail[$v]=0
	done
	for ((r = 0; r < plain_reps; r++)); do
		for ((i = 0; i < n; i++)); do
			v=${variants[$(((i + r) % n))]}
			[ "${avail[$v]}" = 1 ] || continue
			[ "$v" = plain ] || [ $r -lt "$reps" ] || continue
			progress "$p: run $((r + 1)) under ${vlabel[$v]}"
			run_variant "$p" "$v" run "$exe" || avail[$v]=0
		done
	done
}

row() { printf '  %-26s %8s %8s %8s %8s %10s %8s %8s %8s %8s %9s\n' "$@"; }

# measure_program PROGRAM EXE: runs it under every set-up and prints its table.
measure_program() {
	local p=$1 exe=$2 v t c st calls bytes out
	declare -A avail
	run_all "$p" "$exe"
	progress "$p: counting the recorded calls"
	local t0 c0 s0
	t0=$(med 1 "$tmp/$p.plain.run.res") c0=$(med 2 "$tmp/$p.plain.run.res")
	s0=$(med 1 "$tmp/$p.plain.start.res")
	progress_done
	echo
	echo "== $p: ${exe##*/} $(workload_"$p" run; echo "${wargs[*]##*/}") =="
	row set-up "wall s" slowdown "CPU s" "start s" calls ns/call "hot ns" "CPU ns" bytes/call patched
	for v in "${variants[@]}"; do
		if [ "${avail[$v]}" != 1 ]; then
			row "${vlabel[$v]}" "failed" - - - - - - - - -
			continue
		fi
		t=$(med 1 "$tmp/$p.$v.run.res") c=$(med 2 "$tmp/$p.$v.run.res")
		st=$(med 1 "$tmp/$p.$v.start.res")
		if [ "$v" = plain ]; then
			row plain "$(calc %.3f "$t / 1e9")" 1.00x "$(calc %.3f "$c / 1e9")" \
				"$(calc %.3f "$st / 1e9")" - - - - - -
			continue
		fi
		calls=$(recorded_calls "$p" "$v") bytes=$(recording_bytes "$p" "$v")
		[ "${calls:-0}" -gt 0 ] || calls=nan
		ns[$p.$v]=$(calc %.1f "($t - $t0) / $calls")
		hot[$p.$v]=$(calc %.1f "(($t - $st) - ($t0 - $s0)) / $calls")
		cpu[$p.$v]=$(calc %.1f "($c - $c0) / $calls")
		ovh[$p.$v]=$(calc %f "$t - $t0")
		out=""
		same_output "$p" "$v" || out="  OUTPUT DIFFERS from plain"
		row "${vlabel[$v]}" "$(calc %.3f "$t / 1e9")" "$(calc %.2fx "$t / $t0")" \
			"$(calc %.3f "$c / 1e9")" "$(calc %.3f "($st - $s0) / 1e9")" "$calls" "${ns[$p.$v]}" \
			"${hot[$p.$v]}" "${cpu[$p.$v]}" "$(calc %.2f "$bytes / $calls")" \
			"$(patched_count "$p" "$v")$out"
		rm -rf "$tmp/$p.$v.run.trace" "$tmp/$p.$v.run.data"
	done
	if [ "${avail[calltrace]}" = 1 ] && [ "${avail[uftrace]}" = 1 ]; then
		echo "  recorded by calltrace only: $(calls_only_in "$p" calltrace uftrace)"
		echo "  recorded by uftrace --no-libcall only: $(calls_only_in "$p" uftrace calltrace)"
	fi
	ratio_lines "$p"
}

declare -A ns hot cpu ovh ratio_cpu
# The ratios uftrace -P . --no-libcall / calltrace of one program.
ratio_lines() {
	local p=$1 ct=calltrace uf=uftrace
	ratio["$p"]=$(calc %.2f "${ovh[$p.$uf]:-nan} / ${ovh[$p.$ct]:-nan}")
	ratio_cpu["$p"]=$(calc %.2f "${cpu[$p.$uf]:-nan} / ${cpu[$p.$ct]:-nan}")
	printf '  uftrace -P . --no-libcall / calltrace: overhead (traced - plain wall) %sx,' \
		"${ratio[$p]}"
	printf ' per call: wall %sx, hot %sx, CPU %sx\n' \
		"$(calc %.2f "${ns[$p.$uf]:-nan} / ${ns[$p.$ct]:-nan}")" \
		"$(calc %.2f "${hot[$p.$uf]:-nan} / ${hot[$p.$ct]:-nan}")" \
		"$(calc %.2f "${cpu[$p.$uf]:-nan} / ${cpu[$p.$ct]:-nan}")"
}

# Each real program's ratio beside fib's (the target: the same factor).
summary_line() {
	local p f=${ratio[fib]:-nan} mark
	echo
	echo "== real programs: how much less calltrace adds than uftrace -P . --no-libcall =="
	for p in $programs; do
		[ "$p" != fib ] || continue
		mark=$(calc '%s' "(${ratio[$p]:-nan} >= 0.8 * $f) ? \"PASS\" : \"MISS\"")
		printf '  %-8s %8sx   fib: %sx   (target: >= 0.8 x fib'"'"'s)   %s   (CPU per call: %sx, fib %sx)\n' \
			"$p" "${ratio[$p]:-n/a}" "$f" "$mark" "${ratio_cpu[$p]:-n/a}" "${ratio_cpu[fib]:-n/a}"
	done
}
