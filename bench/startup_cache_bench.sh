#!/usr/bin/env bash
# startup_cache_bench.sh - what a process's start costs under `calltrace
# record` when a script starts many of them: a shell script starting 100
# `bash -c 'exit 0'`, run plain, under CALLTRACE_BEFORE (another build of
# calltrace, optional: e.g. one without the session's cache of function
# lists) and under CALLTRACE; wall time and CPU time (user + system, the
# children's included), medians of the repetitions, and the ratios to the
# plain run.  With -v, the traced run says how many processes took their
# function list from the session's cache.
#
#   bash bench/startup_cache_bench.sh
#   CALLTRACE_BEFORE=/path/to/old/build/bin/calltrace bash bench/startup_cache_bench.sh
#
# Environment: CALLTRACE (default build/bin/calltrace), CALLTRACE_BEFORE
# (none by default), BENCH_REPS (default 5), BENCH_PROCESSES (default 100).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
BEFORE=${CALLTRACE_BEFORE:+$(realpath -m "$CALLTRACE_BEFORE")}
reps=${BENCH_REPS:-5}
processes=${BENCH_PROCESSES:-100}
[ -x "$CALLTRACE" ] || { echo "startup_cache_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "startup_cache_bench: needs /usr/bin/time" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/cache # calltrace's lasting module cache: the bench's own
cat >"$tmp/script.sh" <<SCRIPT
for ((i = 0; i < $processes; i++)); do bash -c 'exit 0'; done
SCRIPT

# measure NAME COMMAND...: appends "wall cpu" of each repetition to $tmp/NAME.
measure() {
	local name=$1 r
	shift
	for ((r = 0; r < reps; r++)); do
		/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >/dev/null 2>"$tmp/$name.err"
		awk '{ print $1, $2 + $3 }' "$tmp/time" >>"$tmp/$name"
	done
}

measure plain bash "$tmp/script.sh"
[ -n "$BEFORE" ] && measure before "$BEFORE" record -q --replace -o "$tmp/b.trace" bash "$tmp/script.sh"
measure after "$CALLTRACE" record -q --replace -o "$tmp/a.trace" bash "$tmp/script.sh"
"$CALLTRACE" record -v --replace -o "$tmp/v.trace" bash "$tmp/script.sh" >/dev/null 2>"$tmp/v.err"
cached=$(grep -c "functions of .*: from the session's cache" "$tmp/v.err" || true)
listed=$(grep -c "functions of .*: listed" "$tmp/v.err" || true)

pw=$(med 1 "$tmp/plain") pc=$(med 2 "$tmp/plain")
printf '%s\n' "start-up: a script starting $processes bash -c 'exit 0' (medians of $reps runs)"
printf '%-34s %10s %10s %10s %10s\n' run "wall s" "cpu s" "wall ×" "cpu ×"
row() {
	local w c
	w=$(med 1 "$tmp/$2") c=$(med 2 "$tmp/$2")
	printf '%-34s %10s %10s %10s %10s\n' "$1" "$w" "$c" "$(calc %.1f "$w / $pw")" \
		"$(calc %.1f "$c / $pc")"
}
row plain plain
[ -n "$BEFORE" ] && row "record (CALLTRACE_BEFORE)" before
row "record" after
echo "function lists: $listed listed, $cached from the session's cache (record -v)"
