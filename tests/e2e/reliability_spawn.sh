#!/usr/bin/env bash
# reliability_spawn.sh - children started with an environment that lacks
# LD_PRELOAD and CALLTRACE_* (posix_spawn, fork + execve, fork + execle,
# fork + clearenv + execv as `env -i` does) are recorded into the same
# trace: each child's process image is there with exactly its calls
# (child_work and child_leaf 100, 200, 300 and 400 times, main once);
# output and exit statuses as untraced.  And pthread key destructors
# (instrumented) that run at thread exit are recorded: tsd_dtor and
# tsd_leaf once per thread, 0 unfinished, 0 problems.
# TORTURE=1: 64 threads instead of 8.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel spawner spawner.c
build_rel spawned spawned.c
build_rel tsd tsd.c

run_plain spawn "$WORK/spawner" "$WORK/spawned"
record spawn "$WORK/spawner" "$WORK/spawned"
same_as_plain spawn
info_of "$WORK/spawn.trace" "$WORK/spawn.info"
expect_complete "$WORK/spawn.info" spawn
image_commands "$WORK/spawn.info" >"$WORK/spawn.images"
for n in 1 2 3 4; do
	how=$(echo "posix_spawn execve execle clearenv+execv" | cut -d' ' -f$n)
	pid=$(awk -v c="$WORK/spawned $n" '{ p = $1; $1 = "" } $0 == " " c { print p }' "$WORK/spawn.images")
	[ -n "$pid" ] || fail "the child started by $how (\"spawned $n\") is not in the trace: $(cut -d' ' -f2- "$WORK/spawn.images" | tr '\n' ';')"
	ct report --pid "$pid" "$WORK/spawn.trace" >"$WORK/spawn.$n.report"
	expect_calls "$WORK/spawn.$n.report" child_work $((100 * n)) "$how child"
	expect_calls "$WORK/spawn.$n.report" child_leaf $((100 * n)) "$how child"
	expect_calls "$WORK/spawn.$n.report" main 1 "$how child"
done

threads=$(sized 8 64)
run_plain tsd "$WORK/tsd" "$threads"
record tsd "$WORK/tsd" "$threads"
same_as_plain tsd
info_of "$WORK/tsd.trace" "$WORK/tsd.info"
expect_complete "$WORK/tsd.info" tsd
ct report "$WORK/tsd.trace" >"$WORK/tsd.report"
for f in tsd_thread tsd_work tsd_dtor tsd_leaf; do
	expect_calls "$WORK/tsd.report" $f "$threads" "tsd ($threads threads)"
done
pass
