#!/usr/bin/env bash
# reliability_crash.sh - a stack overflow (infinite recursion) in the main
# thread and in another thread: the program dies of SIGSEGV as untraced,
# and `calltrace crash` shows the crash report: signal 11 in
# recurse_forever, the crashing thread, and every call open at the crash
# (as many as the thread's max depth; info counts them unfinished, plus
# the other thread's open calls); info shows the crash and 0 problems.
# TORTURE=1: also with a 64 MiB main stack (`ulimit -s`).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/programs/reliability/helpers.sh
source "$PROGRAMS/reliability/helpers.sh"
setup
build_rel overflow overflow.c -Wno-infinite-recursion

# overflow_case NAME MODE OTHER_OPEN: MODE is main or thread; OTHER_OPEN is
# the number of calls open in the threads that did not crash.
overflow_case() {
	local name=$1 mode=$2 other=$3 crash=$WORK/$1.crash info=$WORK/$1.info
	run_plain "$name" "$WORK/overflow" "$mode"
	[ "$PLAIN_RC" = 139 ] || fail "$name: untraced the program ends with $(exit_name "$PLAIN_RC"), not SIGSEGV"
	record "$name" "$WORK/overflow" "$mode"
	same_as_plain "$name"
	ct crash -o "$crash" "$WORK/$name.trace"
	grep -q "crashed: signal 11 " "$crash" || fail "$name: no crash report: $(head -c 200 "$crash")"
	grep -q "^  in recurse_forever at overflow.c:" "$crash" ||
		fail "$name: the crash is not placed in recurse_forever: $(sed -n 2p "$crash")"
	grep -q "^  #0 *recurse_forever " "$crash" || fail "$name: innermost open call: $(grep -m1 '^  #' "$crash")"
	read -r pid tid < <(sed -n 's/^pid \([0-9]*\) tid \([0-9]*\) .*/\1 \2/p' "$crash")
	if [ "$mode" = main ]; then
		[ "$pid" = "$tid" ] || fail "$name: the crash is in thread $tid, not the main thread $pid"
	else
		[ "$pid" != "$tid" ] || fail "$name: the crash is in the main thread, not the second one"
	fi
	# A line is one frame, or a run of them: "(×N frames, ...)".
	shown=$(awk '/^  #/ { n = 1; if (match($0, /[0-9]+ frames, calls/)) n = substr($0, RSTART) + 0; s += n } END { print s + 0 }' "$crash")
	more=$(sed -n 's/^  \.\.\. and \([0-9]*\) more$/\1/p' "$crash")
	open=$((shown + ${more:-0}))
	info_of "$WORK/$name.trace" "$info"
	[ "$(info_field "$info" problems)" = 0 ] || fail "$name: info shows problems: $(grep -A2 '^problems' "$info" | tr '\n' ' ')"
	grep -q "^crash: *pid $pid tid $tid: signal 11 " "$info" || fail "$name: info shows no crash of tid $tid"
	depth=$(info_field "$info" "max depth")
	unfinished=$(info_field "$info" unfinished | cut -d' ' -f1)
	[ "$open" = "$depth" ] || fail "$name: the crash report shows $open open calls, the crashing thread was $depth deep"
	[ "$unfinished" = $((open + other)) ] ||
		fail "$name: info counts $unfinished unfinished calls, expected the $open open at the crash + $other"
	[ "$open" -gt 1000 ] || fail "$name: only $open calls open at a stack overflow"
	echo "$name: $open calls open at the overflow"
}

overflow_case main main 0
overflow_case thread thread 2 # main, start_overflow_thread
if [ "${TORTURE:-0}" = 1 ]; then
	(
		ulimit -s 65536
		overflow_case bigstack main 0
	)
fi
pass
