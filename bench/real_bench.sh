#!/usr/bin/env bash
# real_bench.sh - slowdown of real programs built without tracing flags
# (Lua 5.4 from Debian's sources, the SQLite shell from the amalgamation in
# npm's sqlite3 package), recorded by calltrace's in-process engine beside
# `uftrace record -P .`, with fib as the reference, in one run.
#
#   bash bench/real_bench.sh            (run by bench/run_bench.sh)
#   BENCH_QUICK=1 bash bench/real_bench.sh
#
# Environment: CALLTRACE (default build/bin/calltrace), CC (default gcc),
# BENCH_SRC (where the sources and the built programs are kept between runs,
# default build/bench-src), BENCH_REPS (runs of each traced set-up, default
# 3, quick 1; the plain runs are always 3 or more), REAL_PROGRAMS (default
# "fib lua sqlite"), SQLITE_NPM (the npm package, default sqlite3@6.0.1).
# A program whose sources cannot be fetched or built is skipped with a line
# that says why.  bench/README.md explains the figures.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
SRC=$(realpath -m "${BENCH_SRC:-build/bench-src}")
SQLITE_NPM=${SQLITE_NPM:-sqlite3@6.0.1}
programs=${REAL_PROGRAMS:-fib lua sqlite}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	reps=${BENCH_REPS:-1} scale=1 fib_n=28
else
	reps=${BENCH_REPS:-3} scale=1 fib_n=30
fi
plain_reps=$((reps < 3 ? 3 : reps))

[ -x "$CALLTRACE" ] || { echo "real_bench: no calltrace at $CALLTRACE (make)" >&2; exit 1; }
command -v uftrace >/dev/null || { echo "real_bench: uftrace is needed (make deps)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$SRC"
measure=$tmp/run_measure
"$CC" -std=gnu11 -O2 -o "$measure" bench/run_measure.c

progress() { [ ! -t 2 ] || printf '\r%-78.78s' "$*" >&2; }
progress_done() { [ ! -t 2 ] || printf '\r%-78s\r' "" >&2; }
skipped() { progress_done; echo "  $1: skipped: $2"; }

# shellcheck source=bench/debian_src.sh
. bench/debian_src.sh
# shellcheck source=bench/real_programs.sh
. bench/real_programs.sh
# shellcheck source=bench/real_runs.sh
. bench/real_runs.sh

echo "== real programs built without tracing flags: slowdown, calltrace beside uftrace =="
echo "   (plain: median of $plain_reps; traced: median of $reps; wall and CPU time of the"
echo "   whole process tree; calls as each tracer recorded them)"
declare -A ratio
for p in $programs; do
	exe=$(obtain_"$p") || { skipped "$p" "$exe"; continue; }
	measure_program "$p" "$exe" || true
done
progress_done
summary_line
