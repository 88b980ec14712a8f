#!/usr/bin/env bash
# core_kill9.sh - a program killed with SIGKILL while two threads block deep
# in known call chains: calltrace exits 137, every call made before the kill
# is in the trace, the open ones are unfinished, and replay, report, info and
# json all read the trace and exit 0.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c killme "$PROGRAMS/killme.c"
marker=$WORK/ready
"$CALLTRACE" record -o "$WORK/k.trace" "$WORK/killme" "$marker" >"$WORK/k.out" 2>"$WORK/k.err" &
ct_pid=$!
for ((i = 0; i < 200; i++)); do
	[ -s "$marker" ] && break
	sleep 0.05
done
if ! [ -s "$marker" ]; then
	pkill -KILL -P "$ct_pid" || true
	kill "$ct_pid" 2>/dev/null || true
	fail "killme did not get ready within 10 s: $(head -c 300 "$WORK/k.err")"
fi
kill -KILL "$(cat "$marker")"
RC=0
wait "$ct_pid" || RC=$?
[ "$RC" = 137 ] || fail "calltrace record exited $RC after the program's SIGKILL, not 137"
[ "$(cat "$WORK/k.out")" = "warm: 6" ] || fail "stdout of the killed program: $(head -c 100 "$WORK/k.out")"

for cmd in replay report info; do
	ct "$cmd" "$WORK/k.trace" >"$WORK/k.$cmd"
	[ -s "$WORK/k.$cmd" ] || fail "calltrace $cmd printed nothing"
done
to_json k
check_tree schema "$WORK/k.json" --command "$WORK/killme $marker" --total --files
expect_trees k <<'TREES'
== process 1 main
main [unfinished]
  warm_up
    warm_leaf [x3]
  start_blocker
  deep_1 [unfinished]
    deep_2 [unfinished]
      deep_3 [unfinished]
        deep_4 [unfinished]
          deep_5 [unfinished]
            park [unfinished]
== process 1 thread
blocker_thread [unfinished]
  blocker_wait [unfinished]
TREES
check_tree lines "$WORK/k.json" "$WORK/killme"
expect_replay k
pass
