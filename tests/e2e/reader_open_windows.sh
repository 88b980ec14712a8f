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
build_c short "$PROGRAMS/three_leaves.c"
record many sh -c 'i=0; while [ $i -lt 400 ]; do i=$((i+1)); "$1" || exit 1; done' sh "$WORK/short"
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/many.err")"

ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -c -e trace=lseek -o "$WORK/lseek.txt" "$CALLTRACE" info "$WORK/many.trace" \
	>"$WORK/many.info" 2>"$WORK/info.err" || fail "info failed: $(head -c 300 "$WORK/info.err")"
seeks=$(awk '$NF == "lseek" { print $4 }' "$WORK/lseek.txt")
[ -n "$seeks" ] || seeks=0
[ "$seeks" -lt 40 ] || fail "info made $seeks lseek calls for 401 processes (at most 40 expected)"

expect_processes_calls many "$WORK/many.info" "$WORK/many.trace" 401 leaf 1200
pass
