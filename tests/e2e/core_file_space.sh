#!/usr/bin/env bash
# core_file_space.sh - the trace's disk blocks are reserved ahead of the
# windows, not one fallocate per window: on ext4 each fallocate is a
# journal update that the processes' page faults wait for, and a script of
# short processes claims a window or two in every one of them.  So 150
# short processes (each claims its own first window) make far fewer
# fallocate calls than processes (strace counts them).  At the end
# `calltrace record` gives back the space reserved past the last window:
# the file is exactly as long as the space claimed (the header's
# next_offset).  A session the preloaded runtime made itself reserves
# nothing ahead (no process of it knows when the last claim is made), and
# is as long as claimed too.
# And every call is there: 151 processes, 450 calls of leaf, no problem.
# A recording killed before its end keeps the reserved tail: zeros past
# next_offset, which `info` does not call space claimed and never written.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd strace
build_c short "$PROGRAMS/three_leaves.c"
script='i=0; while [ $i -lt 150 ]; do i=$((i+1)); "$1" || exit 1; done'

# whole NAME TRACE: as long as claimed, reserving nothing ahead any more,
# and every call in it.
whole() {
	expect_trace_length "$1" "$2"
	[ "$(trace_header_u64 "$2" 144)" = 0 ] ||
		fail "$1: the header's reserved_end is $(trace_header_u64 "$2" 144), not 0"
	ct info "$2" >"$WORK/$1.info"
	expect_processes_calls "$1" "$WORK/$1.info" "$2" 151 leaf 450
}

RC=0
{ ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -qq -e trace=fallocate -o "$WORK/fallocate.txt" \
	"$CALLTRACE" record -o "$WORK/many.trace" sh -c "$script" sh "$WORK/short" \
	>"$WORK/many.out" 2>"$WORK/many.err" || RC=$?; } 2>/dev/null
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/many.err")"
made=$(grep -c 'fallocate(' "$WORK/fallocate.txt" || true)
[ "$made" -ge 1 ] || fail "no fallocate call at all: $(head -c 300 "$WORK/fallocate.txt")"
[ "$made" -le 30 ] || fail "$made fallocate calls for 151 processes (at most 30 expected)"
whole record "$WORK/many.trace"

RC=0
{ CALLTRACE_OUTPUT="$WORK/preloaded.trace" LD_PRELOAD="$RUNTIME" \
	sh -c "$script" sh "$WORK/short" >"$WORK/preloaded.out" 2>"$WORK/preloaded.err" ||
	RC=$?; } 2>/dev/null
[ "$RC" = 0 ] || fail "the preloaded run exited $RC: $(head -c 300 "$WORK/preloaded.err")"
whole preloaded "$WORK/preloaded.trace"

cp "$WORK/many.trace" "$WORK/tail.trace"
truncate -s +262144 "$WORK/tail.trace"
ct info "$WORK/tail.trace" >"$WORK/tail.info"
! grep -q '^unwritten:' "$WORK/tail.info" ||
	fail "info calls the reserved tail unwritten: $(grep '^unwritten:' "$WORK/tail.info")"
expect_processes_calls tail "$WORK/tail.info" "$WORK/tail.trace" 151 leaf 450
pass
