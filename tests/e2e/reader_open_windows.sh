#!/usr/bin/env bash
# reader_open_windows.sh - a process's main thread records until its last
# destructor, so the window it writes last is never closed; the reader
# finds where such a window ends by reading it back from its end, not by
# asking the file where its data ends (each lseek(SEEK_HOLE) walks the
# file's extents: a 2 GB trace of 100,000 short processes took minutes
# to open).  A script that starts 400 short processes: `calltrace info`
# reads the trace with a handful of lseek calls (strace counts them), not
# two per process, and still finds 401 processes, and `report` each
# process's 3 calls of leaf.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd strace
cat >"$WORK/short.c" <<'C'
static int leaf(int i) { return i + 1; }
int main(void) { return leaf(leaf(leaf(0))) - 3; }
C
build_c short "$WORK/short.c"
record many sh -c 'i=0; while [ $i -lt 400 ]; do i=$((i+1)); "$1" || exit 1; done' sh "$WORK/short"
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/many.err")"

ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -c -e trace=lseek -o "$WORK/lseek.txt" "$CALLTRACE" info "$WORK/many.trace" \
	>"$WORK/many.info" 2>"$WORK/info.err" || fail "info failed: $(head -c 300 "$WORK/info.err")"
seeks=$(awk '$NF == "lseek" { print $4 }' "$WORK/lseek.txt")
[ -n "$seeks" ] || seeks=0
[ "$seeks" -lt 40 ] || fail "info made $seeks lseek calls for 401 processes (at most 40 expected)"

grep -q '^processes: *401\b' "$WORK/many.info" ||
	fail "info does not count 401 processes: $(grep '^processes' "$WORK/many.info")"
grep -q '^problems: *0$' "$WORK/many.info" || fail "info: $(grep '^problems' "$WORK/many.info")"
ct report "$WORK/many.trace" >"$WORK/many.report"
calls=$(report_calls "$WORK/many.report" leaf)
[ "$calls" = 1200 ] || fail "report counts $calls calls of leaf, 1200 expected"
pass
