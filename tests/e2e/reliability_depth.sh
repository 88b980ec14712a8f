#!/usr/bin/env bash
# reliability_depth.sh - recursion 100,000 levels deep (in a thread with a
# big stack), three descents: output and exit status as untraced; every
# call recorded and finished: descend() called exactly 300,000 times, max
# depth exactly 100,000, 0 unfinished calls, 0 problems, nothing reported
# lost.  TORTURE=1: 1,000,000 levels.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel deep deep.c

depth=$(sized 100000 1000000)
descents=3
run_plain deep "$WORK/deep" "$depth" "$descents"
[ "$PLAIN_RC" = 0 ] || fail "deep exits $PLAIN_RC untraced: $(head -c 200 "$WORK/deep.plain.err")"
record deep "$WORK/deep" "$depth" "$descents"
same_as_plain deep
info_of "$WORK/deep.trace" "$WORK/deep.info"
expect_complete "$WORK/deep.info" deep
[ "$(info_field "$WORK/deep.info" "max depth")" = "$depth" ] ||
	fail "max depth is $(info_field "$WORK/deep.info" "max depth"), the program went $depth deep"
ct report "$WORK/deep.trace" >"$WORK/deep.report"
expect_calls "$WORK/deep.report" descend $((depth * descents)) deep
expect_calls "$WORK/deep.report" main 1 deep
calls=$(info_field "$WORK/deep.info" calls | cut -d' ' -f1)
[ "$calls" = $((depth * descents + 1)) ] || fail "info counts $calls calls, the program made $((depth * descents + 1))"
echo "$descents descents $depth levels deep: $calls calls"
pass
