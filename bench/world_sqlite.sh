#!/usr/bin/env bash
# world_sqlite.sh - the library calls of a real program, the SQLite shell
# built from Debian's sources: calltrace's in-process engine on the plain
# build (-O2 -g) beside `uftrace record` on the -pg build (its default: the
# program's functions and its library calls), in one run.  Prints the calls
# of each library function as each tool counted them (and calltrace's count
# on the -pg build, the binary uftrace ran, which tells a difference of the
# builds from a difference of the tools), then the wall and CPU time of each
# run (calltrace's also without library calls, for what they cost) and their
# ratios to the untraced plain build.
#
#   bash bench/world_sqlite.sh        (make bench-sqlite)
#
# Environment: CALLTRACE (default build/bin/calltrace), CC (default gcc),
# BENCH_SRC (where Debian's sources and the two builds are kept between
# runs, default build/bench-src), BENCH_REPS (timed runs of each, default
# 3), SQLITE_ROWS (rows of the workload, default 100000).  Needs uftrace,
# tclsh (SQLite's build makes its amalgamation with it) and `apt-get
# source` (bench/debian_src.sh: a deb-src line is added when apt has none,
# as root).  bench/README.md explains the figures.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=bench/stats.sh
. bench/stats.sh
# shellcheck source=bench/debian_src.sh
. bench/debian_src.sh
CALLTRACE=$(realpath -m "${CALLTRACE:-build/bin/calltrace}")
CC=${CC:-gcc}
SRC=$(realpath -m "${BENCH_SRC:-build/bench-src}")/world-sqlite
reps=${BENCH_REPS:-3}
rows=${SQLITE_ROWS:-100000}

say() { echo "world_sqlite: $*" >&2; }
[ -x "$CALLTRACE" ] || { say "no calltrace at $CALLTRACE (make)"; exit 1; }
for cmd in uftrace tclsh apt-get nm; do
	command -v "$cmd" >/dev/null || { say "$cmd is needed (make deps)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$SRC"

# --- the two builds, from Debian's sources (kept for the next run) ---
plain=$SRC/sqlite3-plain
pg=$SRC/sqlite3-pg
if [ ! -x "$plain" ] || [ ! -x "$pg" ]; then
	log=$SRC/build.log
	say "Debian's sources of sqlite3 (apt-get source, into $SRC/src)"
	dir=$(debian_source sqlite3 "$SRC/src" 'sqlite3-[0-9]*') || { say "$dir"; exit 1; }
	say "making the amalgamation, then building the shell twice (-O2 -g; -O2 -g -pg): a few minutes"
	mkdir -p "$dir/bld"
	(cd "$dir/bld" && ../configure --disable-tcl && make sqlite3.c shell.c) >>"$log" 2>&1 || {
		say "the amalgamation of $dir failed (see $log)"
		exit 1
	}
	for flags in "-O2 -g:$plain.tmp" "-O2 -g -pg:$pg.tmp"; do
		# shellcheck disable=SC2086 # the flags are words
		if ! "$CC" ${flags%%:*} -o "${flags#*:}" "$dir/bld/shell.c" "$dir/bld/sqlite3.c" \
			-ldl -lpthread -lm >>"$log" 2>&1; then
			say "the build of the shell (${flags%%:*}) failed (see $log)"
			exit 1
		fi
	done
	mv "$plain.tmp" "$plain"
	mv "$pg.tmp" "$pg"
	# The two builds are kept; the sources (whose www/ holds directories
	# named *.d) are not left under build/.
	rm -rf "$SRC/src"
fi

# --- the workload: the same statements, the same data in every run ---
cat >"$tmp/work.sql" <<SQL
create table t(a integer primary key, b text, c real);
with recursive n(x) as (select 1 union all select x+1 from n where x<$rows)
  insert into t select x, printf('%08x%08x', (x*2654435761)%4294967296, (x*40503)%65536), x*1.5 from n;
create index tb on t(b);
select count(*), sum(c), max(b) from t where a % 7 = 3;
select b from t order by b limit 5;
update t set c = c*2 where a < $((rows / 4));
delete from t where a > $((rows * 3 / 4));
select count(*) from t;
SQL
measure=$tmp/run_measure
"$CC" -std=gnu11 -O2 -o "$measure" bench/run_measure.c

# run NAME CMD...: one timed run; "wall_ns cpu_ns" appended to $tmp/NAME.res.
run() {
	local name=$1 line
	shift
	rm -rf "$tmp/$name.trace" "$tmp/$name.data"
	line=$("$measure" "$tmp/$name.out" "$tmp/$name.err" "$@" :memory: ".read $tmp/work.sql") || {
		say "$name failed: $(grep -v '^calltrace:  ' "$tmp/$name.err" | tail -n 3)"
		return 1
	}
	echo "$line" | awk '{ print $1, $3 + $4 }' >>"$tmp/$name.res"
}

# (A -pg program writes gmon.out where it runs.)
cd "$tmp"
say "running the workload ($rows rows) $reps times each: plain, calltrace (with and without library calls), uftrace"
for ((i = 0; i < reps; i++)); do
	run plain "$plain" || exit 1
	run calltrace "$CALLTRACE" record -q -o "$tmp/calltrace.trace" "$plain" || exit 1
	run calltrace_nolib "$CALLTRACE" record -q --no-libcall -o "$tmp/calltrace_nolib.trace" "$plain" || exit 1
	run uftrace uftrace record -d "$tmp/uftrace.data" "$pg" || exit 1
done
# The control: calltrace on the binary uftrace ran.  (A -pg build calls
# mcount through its PLT; a calltrace that hooks that slot may crash it.)
pg_ok=1
run calltrace_pg "$CALLTRACE" record -q -o "$tmp/calltrace_pg.trace" "$pg" || pg_ok=0
for name in calltrace uftrace; do
	cmp -s "$tmp/plain.out" "$tmp/$name.out" || say "the run under $name printed something else than the plain run"
done

# --- calls per library function ---
# The Calls column is the fifth field in both reports.  calltrace: its
# library calls (read@libc.so.6 -> read); uftrace: every
# function its report names that the executable does not define.
lib_calls() { # lib_calls TRACE
	"$CALLTRACE" report --kind library -s name -n 100000 "$1" |
		awk 'NR > 2 && $NF ~ /@/ { sub(/@.*/, "", $NF); print $NF, $5 }' | sort
}
lib_calls "$tmp/calltrace.trace" >"$tmp/ct.calls"
if [ $pg_ok = 1 ]; then
	lib_calls "$tmp/calltrace_pg.trace" >"$tmp/ct_pg.calls"
else
	: >"$tmp/ct_pg.calls"
fi
nm --defined-only "$pg" | awk '{ print $3 }' | sort -u >"$tmp/own"
uftrace report -d "$tmp/uftrace.data" -s call 2>/dev/null |
	awk 'NR > 2 && $NF !~ /^linux:/ && $0 !~ /pre-empted/ { print $NF, $5 }' | sort |
	join -v1 - "$tmp/own" >"$tmp/uft.calls"

echo
echo "Library calls of the SQLite shell ($rows rows; Debian's sources), per function"
printf '  %-28s %12s %12s %10s %16s\n' function calltrace uftrace difference "calltrace on -pg"
join -a1 -a2 -e 0 -o 0,1.2,2.2 "$tmp/ct.calls" "$tmp/uft.calls" |
	join -a1 -a2 -e 0 -o 0,1.2,1.3,2.2 - "$tmp/ct_pg.calls" |
	sort -k3,3nr -k2,2nr | awk -v pg=$pg_ok '{ d = $2 - $3
		printf "  %-28s %12d %12d %10s %16s\n", $1, $2, $3, (d ? sprintf("%+d", d) : "="), (pg ? $4 : "-") }'
awk '{ s += $2 } END { printf "  %-28s %12d", "all", s }' "$tmp/ct.calls"
awk '{ s += $2 } END { printf " %12d\n", s }' "$tmp/uft.calls"

echo
echo "Time of the workload (median of $reps; CPU = user + system of every process of the run)"
printf '  %-44s %10s %10s %8s %8s\n' run "wall ms" "CPU ms" "wall x" "CPU x"
pw=$(med 1 "$tmp/plain.res") pc=$(med 2 "$tmp/plain.res")
for name in plain calltrace calltrace_nolib uftrace; do
	case $name in
	plain) label="untraced (-O2 -g)" ;;
	calltrace) label="calltrace record (in-process, library calls)" ;;
	calltrace_nolib) label="calltrace record --no-libcall" ;;
	uftrace) label="uftrace record (-pg build, default)" ;;
	esac
	w=$(med 1 "$tmp/$name.res") c=$(med 2 "$tmp/$name.res")
	printf '  %-44s %10s %10s %8s %8s\n' "$label" "$(calc '%.1f' "$w / 1e6")" "$(calc '%.1f' "$c / 1e6")" \
		"$(calc '%.2f' "$w / $pw")" "$(calc '%.2f' "$c / $pc")"
done
