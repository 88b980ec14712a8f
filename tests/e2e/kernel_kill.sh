#!/usr/bin/env bash
# kernel_kill.sh - record --syscalls writes the kernel's events into the
# trace while the program runs: they are in the file before the program
# ends, a kill -9 of the program loses none of them (record exits 137 with
# every system call up to the kill written), and a kill -9 of record itself
# leaves what was written readable.  Needs root (or CAP_PERFMON).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
build_c target "$PROGRAMS/kernel/sys_target.c"
dump() {
	python3 "$ROOT/tests/e2e/kernel_dump.py" "$WORK/$1.trace" >"$WORK/$1.dump" 2>/dev/null
}
# has_getpgid NAME: the trace holds the main thread's getpgid() calls.
has_getpgid() {
	dump "$1" && grep -q "^kernel .* enter syscall 121 " "$WORK/$1.dump"
}

# kill -9 of the program.
"$CALLTRACE" record --syscalls -o "$WORK/prog.trace" "$WORK/target" "$WORK/prog.pid" \
	"$WORK/prog.stop" 1 >"$WORK/prog.out" 2>"$WORK/prog.err" &
record_job=$!
ATTACH_ERR=$WORK/prog.err
wait_for "the program's pid file" test -s "$WORK/prog.pid"
pid=$(cat "$WORK/prog.pid")
wait_for "getpgid() written while the program runs" has_getpgid prog
kill -KILL "$pid"
RC=0
wait "$record_job" || RC=$?
[ "$RC" = 137 ] || fail "record exited $RC after kill -9 of the program, not 137"
dump prog || fail "the trace cannot be read"
grep -q "^kernel $pid $pid .* enter syscall 121 " "$WORK/prog.dump" ||
	fail "the program's system calls are not under its pid $pid"
[ "$(grep -c "^kernel $pid [0-9]* [0-9]* enter syscall 110 " "$WORK/prog.dump")" -ge 1 ] ||
	fail "the thread's getppid() calls are missing"

# kill -9 of record: what it had written stays.
"$CALLTRACE" record --syscalls -o "$WORK/tool.trace" "$WORK/target" "$WORK/tool.pid" \
	"$WORK/tool.stop" 1 >"$WORK/tool.out" 2>"$WORK/tool.err" &
record_job=$!
ATTACH_ERR=$WORK/tool.err
wait_for "the program's pid file" test -s "$WORK/tool.pid"
wait_for "getpgid() written while the program runs" has_getpgid tool
kill -KILL "$record_job"
wait "$record_job" 2>/dev/null || true
touch "$WORK/tool.stop"
pid=$(cat "$WORK/tool.pid")
wait_for "the program's end" sh -c "! kill -0 $pid 2>/dev/null"
has_getpgid tool || fail "the events written before record was killed are gone"
pass
