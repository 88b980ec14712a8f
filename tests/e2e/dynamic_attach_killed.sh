#!/usr/bin/env bash
# dynamic_attach_killed.sh - a `calltrace attach` killed with kill -9 leaves
# the process as it was, under each engine.
#
# A busy 2-thread program (tick_tock.c) is attached to, again and again;
# once the trace grows (recording is under way), `calltrace attach` is
# killed with SIGKILL: the process it started (every engine) or, for the
# in-process engine, every other time its tracing child instead.  Each time
# the process must end up untraced, its code byte for byte the file's, the
# trace readable and no longer growing (it has the same size when the
# program has ended); the program must end with its own output and status.
# KILLS per engine: 5, 20 with TORTURE=1.  Last, both processes of an
# in-process attach are killed at once: nothing is left to put the entries
# back, but the runtime stops recording by itself (at most a window more
# per thread while the program works on for 2 CPU seconds).
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
need_cmd pgrep
kills=5
[ "${TORTURE:-0}" = 1 ] && kills=20

build_c tick "$PROGRAMS/dynamic/tick_tock.c"
touch "$WORK/expect.stop"
RC=0
"$WORK/tick" "$WORK/expect.pid" "$WORK/expect.stop" 2 >"$WORK/expect.out" 2>&1 || RC=$?
[ "$RC" = 3 ] || fail "untraced tick_tock exited $RC, not 3"

trace_grew() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt 65536 ]; }
# Gone, or a zombie its new parent has not collected yet.
ended() { [ ! -e "/proc/$1" ] || [ "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)" = Z ]; }
untraced() { grep -q '^TracerPid:[[:space:]]*0$' "/proc/$TARGET_PID/status"; }
# The CPU time the program has used, in clock ticks.
cpu_ticks() { sed 's/.*) //' "/proc/$TARGET_PID/stat" | awk '{ print $12 + $13 }'; }
worked_since() { [ "$(cpu_ticks)" -ge "$1" ]; }

# kill_attach ENGINE N WHICH: attach N to $TARGET_PID, killed once
# recording; WHICH is "started" (the process started) or "tracer" (its
# child that traces).
kill_attach() {
	local engine=$1 n=$2 which=$3 trace=$WORK/$1.$2.trace attach worker victim size
	ATTACH_ERR=$trace.err
	"$CALLTRACE" attach -p "$TARGET_PID" --engine "$engine" -o "$trace" >/dev/null 2>"$trace.err" &
	attach=$!
	wait_for "$engine attach $n: the trace growing" trace_grew "$trace"
	# The trace is created by the tracing child (the process started, if none).
	worker=$(pgrep -P "$attach" || echo "$attach")
	victim=$attach
	[ "$which" = tracer ] && victim=$worker
	[ "$which" = both ] && victim="$attach $worker"
	# shellcheck disable=SC2086 # one pid or two
	kill -KILL $victim
	wait "$attach" 2>/dev/null || true
	wait_for "$engine attach $n: its tracing child ending" ended "$worker"
	kill -0 "$TARGET_PID" 2>/dev/null || fail "$engine attach $n: the program died when the $which was killed"
	untraced || fail "$engine attach $n: the program is still traced after the $which was killed"
	if [ "$which" = both ]; then
		size=$(stat -c %s "$trace")
		wait_for "the program working 2 CPU seconds on" worked_since $(($(cpu_ticks) + 2 * $(getconf CLK_TCK)))
		(($(stat -c %s "$trace") <= size + 2 * 1048576 + 65536)) ||
			fail "with both processes of the attach killed, the trace grew from $size to $(stat -c %s "$trace") bytes"
		return 0
	fi
	python3 "$ROOT/tests/e2e/check_code.py" "$WORK/tick" "$TARGET_PID" 2>"$WORK/code.err" ||
		fail "$engine attach $n, $which killed: $(tail -n 1 "$WORK/code.err")"
	size=$(stat -c %s "$trace")
	echo "$trace $size" >>"$WORK/sizes"
	"$CALLTRACE" info "$trace" >"$WORK/info.out" 2>"$WORK/info.err" ||
		fail "$engine attach $n: info of the trace failed: $(tail -n 1 "$WORK/info.err")"
	grep -Eq '^calls: +[1-9]' "$WORK/info.out" || fail "$engine attach $n: no call in the trace"
}

for engine in patch ptrace; do
	rm -f "$WORK/sizes"
	start_target "$engine" "$WORK/tick" 2
	for ((n = 1; n <= kills; n++)); do
		which=started
		[ "$engine" = patch ] && ((n % 2 == 0)) && which=tracer
		kill_attach "$engine" "$n" "$which"
	done
	[ "$engine" = patch ] && kill_attach patch both both
	finish_target "$engine"
	[ "$TARGET_RC" = 3 ] && cmp -s "$WORK/$engine.out" "$WORK/expect.out" ||
		fail "after $kills killed attaches ($engine) the program exited $TARGET_RC: $(tr '\n' ' ' <"$WORK/$engine.out" | head -c 200)"
	while read -r trace size; do
		[ "$(stat -c %s "$trace")" = "$size" ] || fail "$trace grew after its attach was killed"
	done <"$WORK/sizes"
done
pass
