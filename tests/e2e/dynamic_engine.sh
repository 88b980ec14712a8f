#!/usr/bin/env bash
# dynamic_engine.sh - the ptrace engine itself: at most two stops per call;
# the int3 entries (first instructions emulated or run out of line,
# CALLTRACE_NO_JUMP=1) give the same trees as the jump entries, on -O0 and
# -O2 builds; the exit status of a program killed by a signal is 128 + the
# signal; a whole shared library (libc, --module) can be traced without
# changing what the program does; bad input gives one "calltrace: " line.
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup

# Stops per call, from the engine's own count (CALLTRACE_DEBUG).
build_c bench "$PROGRAMS/dynamic/bench_calls.c" -O2
CALLTRACE_DEBUG=1 "$CALLTRACE" record -q --dynamic -o "$WORK/b.trace" "$WORK/bench" calls 20000 \
	>"$WORK/b.out" 2>"$WORK/b.err" || fail "bench run failed: $(tail -c 300 "$WORK/b.err")"
python3 - "$WORK/b.err" <<'PY' || fail "$(cat "$WORK/check.err")"
import re, sys
m = re.search(r"(\d+) calls, (\d+) stops", open(sys.argv[1]).read())
if not m:
    sys.exit("no statistics line from the engine")
calls, stops = int(m.group(1)), int(m.group(2))
if calls < 20000:
    sys.exit(f"{calls} calls counted, fewer than the 20000 made")
if stops > 2 * calls + 20:
    sys.exit(f"{stops} stops for {calls} calls: more than two per call")
PY

# Int3 entries and jump entries record the same trees.
for opt in O0 O2; do
	gcc -std=gnu11 -g "-$opt" -fno-inline -o "$WORK/tree_$opt" "$PROGRAMS/tree.c" || fail "cannot compile tree -$opt"
	gcc -std=gnu11 -g "-$opt" -fno-inline -o "$WORK/threads_$opt" "$PROGRAMS/threads.c" -pthread ||
		fail "cannot compile threads -$opt"
	for prog in tree threads; do
		name=${prog}_$opt
		run_plain "$name" "$WORK/$name"
		record "$name" --dynamic "$WORK/$name"
		same_as_plain "$name"
		cp "$WORK/$name.plain.out" "$WORK/${name}_i.plain.out"
		cp "$WORK/$name.plain.err" "$WORK/${name}_i.plain.err"
		CALLTRACE_NO_JUMP=1 record "${name}_i" --dynamic "$WORK/$name"
		same_as_plain "${name}_i"
		to_json "$name"
		to_json "${name}_i"
		check_tree render "$WORK/$name.json" >"$WORK/$name.trees"
		check_tree render "$WORK/${name}_i.json" >"$WORK/${name}_i.trees"
		grep -q '^main' "$WORK/$name.trees" || fail "$name: no main in the trees"
		expect_text "$name with int3 entries" "$WORK/$name.trees" "$WORK/${name}_i.trees"
	done
done

# Killed by a signal: 128 + signal, as without calltrace.
build_c crash "$PROGRAMS/crash.c"
for how in segv abort exit3; do
	run_plain "$how" "$WORK/crash" "$how"
	RC=0
	"$CALLTRACE" record -q --dynamic -o "$WORK/$how.trace" "$WORK/crash" "$how" >/dev/null 2>&1 || RC=$?
	[ "$RC" = "$PLAIN_RC" ] || fail "crash $how: exit $RC under calltrace, $PLAIN_RC without"
done

# All of libc traced: sort's output is unchanged and its calls are there.
need_cmd sort
seq 2000 | sed 's/$/ line/' | tac >"$WORK/lines"
run_plain libc sort "$WORK/lines"
record libc --dynamic --module 'libc\.so' sort "$WORK/lines"
same_as_plain libc
to_json libc
calls=$(check_tree count "$WORK/libc.json")
[ "$calls" -gt 1000 ] || fail "only $calls calls recorded with libc instrumented"

# Bad input.
one_line_error() {
	local what=$1 rc=0
	shift
	"$CALLTRACE" "$@" >/dev/null 2>"$WORK/err" || rc=$?
	[ "$rc" != 0 ] && [ "$(wc -l <"$WORK/err")" = 1 ] && grep -q '^calltrace: ' "$WORK/err" ||
		fail "$what: exit $rc, stderr: $(head -c 200 "$WORK/err")"
}
one_line_error "record --dynamic of a missing program" record --dynamic -o "$WORK/x.trace" "$WORK/no-such-program"
one_line_error "attach without -p" attach -o "$WORK/x.trace"
one_line_error "attach -p with a bad PID" attach -p notapid -o "$WORK/x.trace"
one_line_error "attach with an unknown option" attach --no-such-option -p 1
one_line_error "attach --duration with a bad value" attach -p 1 --duration soon
RC=0
"$CALLTRACE" attach --help >"$WORK/help" 2>&1 || RC=$?
[ "$RC" = 0 ] && grep -q 'attach -p PID' "$WORK/help" || fail "attach --help: exit $RC"
pass
