#!/usr/bin/env bash
# kernel_attach.sh - attach --syscalls --sched to a running process with two
# threads (tests/programs/kernel/sys_target.c), with the in-process engine
# and with the ptrace engine: the kernel events of all three threads are in
# the trace (the main thread's getpgid, the threads' getppid, each sleep's
# clock_nanosleep with a blocked off-CPU interval inside), none of any
# other process; the process runs on to its normal end after the detach.
# Needs root (or CAP_PERFMON).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
CFLAGS_TRACED=(-g -O0 -Wall -Wextra)
setup
build_c target "$PROGRAMS/kernel/sys_target.c"

# check DUMP PID: the kernel events of the dump are as said above.
check() {
	python3 - "$1" "$2" <<'PY'
import collections, sys
pid = sys.argv[2]
calls = collections.Counter()
blocked_in_sleep = collections.Counter()
prev = {}
errors = []
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] != "kernel":
        continue
    if f[1] != pid:
        errors.append("kernel events of process %s, not the target %s" % (f[1], pid))
        break
    tid = f[2]
    if f[4:6] == ["enter", "syscall"]:
        calls[(tid, f[6])] += 1
    if f[4:7] == ["enter", "offcpu", "blocked"] and prev.get(tid) == ["enter", "syscall", "230"]:
        blocked_in_sleep[tid] += 1
    prev[tid] = f[4:7]
getpgid = [t for (t, nr) in calls if nr == "121"]
getppid = [t for (t, nr) in calls if nr == "110"]
if getpgid != [pid]:
    errors.append("getpgid in threads %s, want the main thread %s" % (getpgid, pid))
if len(getppid) != 2 or pid in getppid:
    errors.append("getppid in threads %s, want the two other threads" % getppid)
if len(blocked_in_sleep) != 3:
    errors.append("blocked inside clock_nanosleep in %d threads, want 3" % len(blocked_in_sleep))
if errors:
    sys.exit("; ".join(errors))
PY
}

for engine in patch ptrace; do
	start_target "t$engine" "$WORK/target" 2
	RC=0
	"$CALLTRACE" attach --engine "$engine" -p "$TARGET_PID" --syscalls --sched --duration 600ms \
		-o "$WORK/$engine.trace" >"$WORK/$engine.out" 2>"$WORK/$engine.err" || RC=$?
	if grep -q "not recorded" "$WORK/$engine.err"; then
		finish_target "t$engine"
		skip "$(grep "not recorded" "$WORK/$engine.err")"
	fi
	[ "$RC" = 0 ] || fail "$engine: attach exited $RC: $(head -c 300 "$WORK/$engine.err")"
	kill -0 "$TARGET_PID" 2>/dev/null || fail "$engine: the process is gone after the detach"
	finish_target "t$engine"
	[ "$TARGET_RC" = 0 ] || fail "$engine: after the detach the process exited $TARGET_RC"
	python3 "$ROOT/tests/e2e/kernel_dump.py" "$WORK/$engine.trace" >"$WORK/$engine.dump" ||
		fail "$engine: cannot read the trace"
	out=$(check "$WORK/$engine.dump" "$TARGET_PID" 2>&1) || fail "$engine: $out"
done
pass
