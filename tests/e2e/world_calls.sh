#!/usr/bin/env bash
# world_calls.sh - a program that opens, reads, writes, sleeps 40 ms,
# allocates, connects to a socket it listens on at 127.0.0.1, forks and
# execs (tests/programs/world/world.c), recorded with --args --syscalls
# --sched: built with -finstrument-functions (the runtime records), without
# (the in-process engine), and attached to while it waits.  Between its two
# marks: every library call with its arguments and result as replay shows
# them (open("DIR/in.txt", O_RDONLY) = 3) and as calltrace json gives
# them (arguments by name, type and value), the system calls nested under
# each (openat under open, connect under connect, clock_nanosleep under
# nanosleep), a blocked off-CPU interval inside the sleep's
# clock_nanosleep, and the count of each system call equal to what
# strace -f -qq saw of the same run.  Without the rights for the kernel's
# events, the library calls alone are checked (one line says so).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
unset CALLTRACE_LIBCALL
setup
need_cmd strace
trap 'if [ -n "${TARGET_PID:-}" ]; then kill -KILL "$TARGET_PID" 2>/dev/null || true; fi; rm -rf "$WORK"' EXIT
[ -r "$RUNTIME" ] || skip "no runtime library at $RUNTIME"
src=$PROGRAMS/world/world.c
check=$PROGRAMS/world/world_check.py
# -fno-builtin: memset and the rest stay calls into the C library.
gcc -std=gnu11 -g -O0 -fno-builtin -Wall -Wextra -o "$WORK/plain" "$src" || fail "cannot compile plain"
gcc -std=gnu11 -g -O0 -fno-builtin -finstrument-functions -Wall -Wextra -o "$WORK/hooks" "$src" ||
	fail "cannot compile hooks"
echo "some bytes" >"$WORK/in.txt"
# (A sanitized calltrace cannot look for leaks under strace: LeakSanitizer
# stops threads with ptrace.)
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0

KERNEL=(--syscalls --sched)
"$CALLTRACE" record "${KERNEL[@]}" -o "$WORK/probe.trace" "$WORK/plain" "$WORK" >/dev/null \
	2>"$WORK/probe.err" || fail "record --syscalls failed: $(head -c 300 "$WORK/probe.err")"
if grep -q "not recorded" "$WORK/probe.err"; then
	echo "world_calls: system calls and off-CPU intervals not checked: $(grep -m1 "not recorded" "$WORK/probe.err")"
	KERNEL=()
	export WORLD_NO_KERNEL=1
fi

# tree NAME [attach]: the calls between the marks in $WORK/NAME.trace, as
# expected, in replay's lines and in the JSON tree.
tree() {
	ct replay "$WORK/$1.trace" >"$WORK/$1.replay"
	python3 "$check" tree "$WORK/$1.replay" "$WORK/$1.res" "$WORK" "${2:-record}" >"$WORK/$1.check" 2>&1 ||
		fail "$1: $(head -n 3 "$WORK/$1.check")"
	ct json -o "$WORK/$1.json" "$WORK/$1.trace"
	python3 "$check" json "$WORK/$1.json" "$WORK/$1.res" "$WORK" >"$WORK/$1.check" 2>&1 ||
		fail "$1: $(head -c 600 "$WORK/$1.check")"
}

for prog in hooks plain; do
	# Recorded alone, then under strace -f: the same calls, and the counts
	# of the system calls between the marks are strace's.
	RC=0
	"$CALLTRACE" record --args "${KERNEL[@]}" -o "$WORK/$prog.trace" "$WORK/$prog" "$WORK" \
		>"$WORK/$prog.res" 2>"$WORK/$prog.err" || RC=$?
	[ "$RC" = 0 ] || fail "$prog: record exited $RC: $(head -c 300 "$WORK/$prog.err")"
	tree "$prog"
	[ ${#KERNEL[@]} = 0 ] && continue
	RC=0
	strace -f -qq -o "$WORK/$prog.strace" "$CALLTRACE" record --args "${KERNEL[@]}" \
		-o "$WORK/${prog}_s.trace" "$WORK/$prog" "$WORK" >"$WORK/${prog}_s.res" \
		2>"$WORK/${prog}_s.err" || RC=$?
	[ "$RC" = 0 ] || fail "$prog under strace: record exited $RC: $(head -c 300 "$WORK/${prog}_s.err")"
	tree "${prog}_s"
	python3 "$check" counts "$WORK/${prog}_s.json" "$WORK/$prog.strace" >"$WORK/$prog.counts" 2>&1 ||
		fail "$prog: counts differ from strace's: $(head -n 4 "$WORK/$prog.counts")"
done

# attach: to the plain build while it waits for $WORK/go; then it runs the
# same sequence.
rm -f "$WORK/pid" "$WORK/go"
"$WORK/plain" --wait "$WORK" >"$WORK/attach.res" 2>"$WORK/attach.perr" &
TARGET_JOB=$!
for ((i = 0; i < 1200; i++)); do # a minute, on the busiest machine
	[ -s "$WORK/pid" ] && break
	sleep 0.05
done
TARGET_PID=$(cat "$WORK/pid" 2>/dev/null) || fail "the target wrote no pid"
"$CALLTRACE" attach -v -p "$TARGET_PID" --args "${KERNEL[@]}" -o "$WORK/attach.trace" \
	>"$WORK/attach.out" 2>"$WORK/attach.err" &
ATTACH_JOB=$!
for ((i = 0; i < 1200; i++)); do
	grep -q "functions patched" "$WORK/attach.err" && break
	kill -0 "$ATTACH_JOB" 2>/dev/null || break
	sleep 0.05
done
grep -q "functions patched" "$WORK/attach.err" ||
	fail "attach did not patch: $(head -c 300 "$WORK/attach.err")"
touch "$WORK/go"
RC=0
wait "$ATTACH_JOB" || RC=$?
[ "$RC" = 0 ] || fail "attach exited $RC: $(head -c 300 "$WORK/attach.err")"
RC=0
wait "$TARGET_JOB" || RC=$?
TARGET_PID=
[ "$RC" = 0 ] || fail "the attached program exited $RC: $(head -c 300 "$WORK/attach.perr")"
tree attach attach
pass
