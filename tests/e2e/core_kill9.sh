#!/usr/bin/env bash
# core_kill9.sh - a program killed with SIGKILL while two threads block deep
# in known call chains: calltrace exits 137, every call made before the kill
# is in the trace, the open ones are unfinished, and replay, report, info and
# json all read the trace and exit 0.  Twice: with 3 warm-up calls, and with
# 300000 of them in 16 KiB windows, so that the killed thread's full windows
# were copied out and its last window is the reused one (trace_writer.c).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c killme "$PROGRAMS/killme.c"

# kill_run NAME WARM_CALLS [RECORD OPTION...]: records killme, kills it once
# it is parked, and checks the trace $WORK/NAME.trace.
kill_run() {
	local name=$1 warm=$2 marker=$WORK/$1.ready
	shift 2
	"$CALLTRACE" record "$@" -o "$WORK/$name.trace" "$WORK/killme" "$marker" "$warm" \
		>"$WORK/$name.out" 2>"$WORK/$name.err" &
	local ct_pid=$! i
	for ((i = 0; i < 1200; i++)); do
		[ -s "$marker" ] && break
		sleep 0.05
	done
	if ! [ -s "$marker" ]; then
		pkill -KILL -P "$ct_pid" || true
		kill "$ct_pid" 2>/dev/null || true
		fail "killme did not get ready within a minute: $(head -c 300 "$WORK/$name.err")"
	fi
	kill -KILL "$(cat "$marker")"
	local rc=0
	wait "$ct_pid" || rc=$?
	[ "$rc" = 137 ] || fail "calltrace record exited $rc after the program's SIGKILL, not 137"
	local sum=$((warm * (warm + 1) / 2))
	[ "$(cat "$WORK/$name.out")" = "warm: $sum" ] ||
		fail "stdout of the killed program: $(head -c 100 "$WORK/$name.out")"

	for cmd in replay report info; do
		ct "$cmd" "$WORK/$name.trace" >"$WORK/$name.$cmd"
		[ -s "$WORK/$name.$cmd" ] || fail "calltrace $cmd printed nothing"
	done
	grep -q '^problems: *0$' "$WORK/$name.info" ||
		fail "$name: the reader found problems: $(grep -A3 '^problems' "$WORK/$name.info")"
	to_json "$name"
	check_tree schema "$WORK/$name.json" --command "$WORK/killme $marker $warm" --total --files
	local leaves="warm_leaf [x$warm]"
	[ "$warm" != 1 ] || leaves=warm_leaf
	expect_trees "$name" <<TREES
== process 1 main
main [unfinished]
  warm_up
    $leaves
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
	check_tree lines "$WORK/$name.json" "$WORK/killme"
}

kill_run k 3
expect_replay k

kill_run many 300000 --buffer-size 16K
windows=$(awk '/^ *thread .* event windows?$/ && $(NF - 2) > n { n = $(NF - 2) } END { print n }' \
	"$WORK/many.info")
[ "${windows:-0}" -ge 10 ] || fail "300000 calls in 16 KiB windows took ${windows:-no} windows"
pass
