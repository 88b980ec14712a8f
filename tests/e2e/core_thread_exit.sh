#!/usr/bin/env bash
# core_thread_exit.sh - the calls a thread makes after its stream is closed
# (the C library's clean-up at thread exit calls the program's own free())
# are counted as lost in the trace, one each, with the hooks and with the
# in-process engine; none is lost with recording off.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
same_trees_build tf "$PROGRAMS/thread_free.c"
for build in hooks plain; do
	record "tf_$build" "$WORK/tf.$build"
	late=$(sed -n 's/^late frees: //p' "$WORK/tf_$build.out")
	[ -n "$late" ] || fail "$build: the program did not say its late frees: $(cat "$WORK/tf_$build.out")"
	[ "$late" -gt 0 ] || skip "this C library calls no free() after a thread's destructors"
	ct info "$WORK/tf_$build.trace" >"$WORK/tf_$build.info"
	lost=$(awk '/calls could not be recorded$/ { n += $(NF - 5) } END { print n + 0 }' "$WORK/tf_$build.info")
	[ "$lost" = "$late" ] ||
		fail "$build: $late free() calls after the thread's end, $lost counted as lost: $(grep -A3 problems "$WORK/tf_$build.info")"
	[ "$(report_calls <(ct report "$WORK/tf_$build.trace") free)" = 1 ] ||
		fail "$build: the thread's own free() is not recorded once"
done
# Recording off: nothing is lost.
record tf_off --start-off "$WORK/tf.hooks"
ct info "$WORK/tf_off.trace" >"$WORK/tf_off.info"
grep -q 'could not be recorded' "$WORK/tf_off.info" && fail "recording off: calls counted as lost"
pass
