#!/usr/bin/env bash
# dynamic_attach_storm.sh - many short `calltrace attach` runs against
# programs that call functions in a loop that never sleeps (1 thread and 4
# threads, -O0 and -O2 builds, every other process also interrupted by a
# timer signal each millisecond), so that attach and detach catch threads
# anywhere: on a breakpoint, in a jump slot, on the return trap, inside a
# function's first bytes, in a signal handler.  Every target must survive every cycle and end
# as it would untraced (same output, exit status 3, no round computed
# wrong); every attach must exit 0, and every trace must read back with
# calls in it and no problem.
#
# STORM_CYCLES=N sets the cycles per thread count (default 20, 300 with
# TORTURE=1), STORM_PER_TARGET=N the cycles one process goes through
# before it is let finish (default 5); the last line gives the figures.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -Wall -Wextra)
setup

cycles=${STORM_CYCLES:-20}
[ "${TORTURE:-0}" = 1 ] && cycles=${STORM_CYCLES:-300}
per_target=${STORM_PER_TARGET:-5}

build_c busy_O0 "$PROGRAMS/dynamic/busy_calls.c" -O0
build_c busy_O2 "$PROGRAMS/dynamic/busy_calls.c" -O2

# The output each target must end with: its round sums, no bad round.
for threads in 1 4; do
	touch "$WORK/expect$threads.stop"
	RC=0
	"$WORK/busy_O0" "$WORK/expect$threads.pid" "$WORK/expect$threads.stop" "$threads" \
		>"$WORK/expect$threads.out" 2>&1 || RC=$?
	[ "$RC" = 3 ] || fail "untraced busy_calls with $threads threads exited $RC, not 3"
	RC=0
	"$WORK/busy_O2" "$WORK/expect$threads.pid" "$WORK/expect$threads.stop" "$threads" \
		>"$WORK/expect${threads}_O2.out" 2>&1 || RC=$?
	[ "$RC" = 3 ] || fail "untraced -O2 busy_calls with $threads threads exited $RC, not 3"
	cmp -s "$WORK/expect$threads.out" "$WORK/expect${threads}_O2.out" ||
		fail "the -O0 and -O2 builds compute different sums"
done

# Can we trace at all here?  One attach to a sleeping process says.
sleep 30 &
sleeper=$!
wait_exec "$sleeper" sleep
RC=0
"$CALLTRACE" attach -p "$sleeper" --duration 100ms -o "$WORK/probe.trace" >/dev/null 2>"$WORK/probe.err" || RC=$?
kill "$sleeper" 2>/dev/null || true
wait "$sleeper" 2>/dev/null || true
if [ "$RC" != 0 ]; then
	grep -q "not allowed" "$WORK/probe.err" && skip "ptrace is not allowed here: $(head -n 1 "$WORK/probe.err")"
	fail "attach to a sleeping process exited $RC: $(head -c 300 "$WORK/probe.err")"
fi

total=0 targets=0 deaths=0 attach_failures=0 bad_traces=0 calls_missing=0
notes=()
note() {
	notes+=("$*")
	echo "storm: $*" >&2
}

# check_trace FILE: `calltrace info` reads it, reports no problem, and
# counts calls.
check_trace() {
	local trace=$1 info problems calls
	info=$("$CALLTRACE" info "$trace" 2>&1) || {
		bad_traces=$((bad_traces + 1))
		note "info $trace failed: $(printf '%s\n' "$info" | tail -n 1)"
		return
	}
	problems=$(printf '%s\n' "$info" | awk '$1 == "problems:" { print $2 }')
	calls=$(printf '%s\n' "$info" | awk '$1 == "calls:" { print $2 }')
	if [ "$problems" != 0 ]; then
		bad_traces=$((bad_traces + 1))
		note "$trace: $problems problems: $(printf '%s\n' "$info" | grep -A3 '^problems' | tr '\n' ' ')"
	fi
	if [ -z "$calls" ] || [ "$calls" = 0 ]; then
		calls_missing=$((calls_missing + 1))
		note "$trace: no call recorded"
	fi
}

# storm THREADS: $cycles attach/detach cycles, $per_target per process.
storm() {
	local threads=$1 done_cycles=0 target=0 name prog c rc signals
	while ((done_cycles < cycles)); do
		prog=$WORK/busy_O0
		((target % 2)) && prog=$WORK/busy_O2
		signals=()
		((target % 4 >= 2)) && signals=(signals)
		name=t${threads}_$target
		start_target "$name" "$prog" "$threads" "${signals[@]}"
		for ((c = 0; c < per_target && done_cycles < cycles; c++)); do
			done_cycles=$((done_cycles + 1))
			kill -0 "$TARGET_PID" 2>/dev/null || continue # died: the cycles it had left are lost
			total=$((total + 1))
			rc=0
			timeout -s INT 60 "$CALLTRACE" attach -p "$TARGET_PID" --duration 200ms \
				-o "$WORK/$name.$c.trace" >/dev/null 2>"$WORK/$name.$c.err" || rc=$?
			if [ "$rc" != 0 ]; then
				attach_failures=$((attach_failures + 1))
				note "$name cycle $c: attach exited $rc: $(head -c 200 "$WORK/$name.$c.err" | tr '\n' ' ')"
			fi
			[ -s "$WORK/$name.$c.trace" ] && check_trace "$WORK/$name.$c.trace"
			rm -f "$WORK/$name.$c.trace"
			sleep 0.0$((RANDOM % 5))
		done
		finish_target "$name"
		if [ "$TARGET_RC" != 3 ] || ! cmp -s "$WORK/$name.out" "$WORK/expect$threads.out"; then
			deaths=$((deaths + 1))
			note "$name ($(basename "$prog") ${signals[*]}, $threads threads): exit $TARGET_RC, output $(tr '\n' ' ' <"$WORK/$name.out" | head -c 120)"
		fi
		target=$((target + 1))
		targets=$((targets + 1))
	done
}

# figures THREADS: the counts of one storm, from the totals before it ($1..).
figures() {
	echo "$1 threads: $((total - $2)) cycles, $((deaths - $3)) of $((targets - $4)) processes died," \
		"$((attach_failures - $5)) attach failures, $((bad_traces - $6)) traces with problems," \
		"$((calls_missing - $7)) without calls"
}
summary=
for threads in 1 4; do
	before=("$total" "$deaths" "$targets" "$attach_failures" "$bad_traces" "$calls_missing")
	storm "$threads"
	summary+="${summary:+; }$(figures "$threads" "${before[@]}")"
done
echo "storm: $summary" >&2
((deaths + attach_failures + bad_traces + calls_missing == 0)) || fail "$summary; first: ${notes[0]}"
pass
