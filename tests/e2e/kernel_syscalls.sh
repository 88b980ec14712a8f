#!/usr/bin/env bash
# kernel_syscalls.sh - record --syscalls --sched of a program that opens,
# writes, reads, sleeps 40 ms, forks, runs a thread and execs
# (tests/programs/kernel/sysmix.c), under strace -f in the same run: between
# its two marker system calls the kernel events count each system call as
# strace does; the sleep's clock_nanosleep holds a blocked off-CPU
# interval; the child's, the thread's and the exec'd image's system calls
# are in their own threads; each system call lies inside the program's
# function that made it; no event is of another process than the
# program's.  The same without strace, and with the ptrace engine.  Needs root (or CAP_PERFMON) and strace.
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
need_cmd strace
build_c sysmix "$PROGRAMS/kernel/sysmix.c"
dump() {
	python3 "$ROOT/tests/e2e/kernel_dump.py" "$WORK/$1.trace" >"$WORK/$1.dump" ||
		fail "cannot read $1.trace"
}

RC=0
# (A sanitized calltrace cannot look for leaks under strace: LeakSanitizer
# stops threads with ptrace.)
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace -f -n -o "$WORK/strace.txt" "$CALLTRACE" record --syscalls --sched -o "$WORK/sm.trace" \
	"$WORK/sysmix" "$WORK/file" >"$WORK/sm.out" 2>"$WORK/sm.err" || RC=$?
if grep -q "not recorded" "$WORK/sm.err"; then
	skip "$(grep "not recorded" "$WORK/sm.err")"
fi
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/sm.err")"
grep -q "^calltrace: kernel: [1-9][0-9]* system calls, [1-9][0-9]* off-CPU intervals" \
	"$WORK/sm.err" || fail "no kernel summary: $(cat "$WORK/sm.err")"
dump sm
out=$(python3 "$ROOT/tests/e2e/kernel_check.py" "$WORK/sm.dump" "$WORK/strace.txt") ||
	fail "$out"

# Without strace too (no ptrace stops between the events).
record plain --syscalls --sched "$WORK/sysmix" "$WORK/file"
dump plain
: >"$WORK/none.txt"
out=$(python3 "$ROOT/tests/e2e/kernel_check.py" "$WORK/plain.dump" "$WORK/none.txt" 2>&1 |
	grep -v -e "^syscall [0-9]*: [0-9]* recorded, strace saw 0" -e "^strace" || true)
[ -z "$out" ] || fail "without strace: $out"

# What the views see (calltrace json): each system call named, under the
# function that made it, the sleep's blocked interval under its
# clock_nanosleep, the exec's execve ending the forked child's image and the
# loader's calls starting the exec'd one.
to_json plain
python3 - "$WORK/plain.json" <<'PY' 2>"$WORK/json.err" || fail "json: $(cat "$WORK/json.err")"
import json, sys
trees = json.load(open(sys.argv[1]))["call_trees"]
def syscalls(calls):
    return [c["function"] for c in calls if c.get("kind") == "syscall"]
def under(calls, name):
    found = [c for c in calls if c["function"] == name and c.get("kind") is None]
    if len(found) != 1:
        sys.exit("%d calls of %s, want 1" % (len(found), name))
    return found[0]["children"]
main = [t for t in trees.values() if t["image"] == 1 and t["pid"] == t["thread_id"]]
top = under(main[0]["calls"], "main")
files = [n for n in syscalls(under(top, "do_files")) if n in ("openat", "write", "lseek", "read", "close")]
if files != ["openat", "write", "write", "write", "lseek", "read", "close"]:
    sys.exit("do_files made %s" % files)
sleep = [c for c in under(top, "do_sleep") if c.get("kind") == "syscall"]
if [c["function"] for c in sleep] != ["clock_nanosleep"] or \
        "off-cpu:blocked" not in [c["function"] for c in sleep[0]["children"]]:
    sys.exit("do_sleep: %s" % json.dumps(sleep)[:300])
images = sorted((t for t in trees.values() if t["pid"] == t["thread_id"]), key=lambda t: t["image"])
target = [t for t in images if "exec_target" in json.dumps([c["function"] for c in t["calls"]]) or
          any(c["function"] == "main" and "exec_target" in [d["function"] for d in c["children"]]
              for c in t["calls"])]
if len(target) != 1:
    sys.exit("%d images ran exec_target" % len(target))
new = target[0]
old = [t for t in images if t["pid"] == new["pid"] and t["image"] != new["image"]]
if not old or syscalls(old[-1]["calls"])[-1:] != ["execve"]:
    sys.exit("the image before the exec does not end with execve: %s" % syscalls(old[-1]["calls"])[-3:] if old else "no image before the exec")
if new["calls"][0]["function"] == "main" or syscalls(new["calls"])[:1] != ["brk"]:
    sys.exit("the exec'd image does not start with its loader's brk: %s" % [c["function"] for c in new["calls"][:3]])
getgid = syscalls(under(under(new["calls"], "main"), "exec_target"))
if getgid.count("getgid") != 4:
    sys.exit("exec_target made %s" % getgid)
PY

# The ptrace engine starts the program itself: the same events, of the
# program's processes only.
record ptrace --engine ptrace --syscalls --sched "$WORK/sysmix" "$WORK/file"
dump ptrace
out=$(python3 "$ROOT/tests/e2e/kernel_check.py" "$WORK/ptrace.dump" "$WORK/none.txt" 2>&1 |
	grep -v -e "^syscall [0-9]*: [0-9]* recorded, strace saw 0" -e "^strace" || true)
[ -z "$out" ] || fail "ptrace engine: $out"

# -v says in one line what the kernel offers for its own functions.
record verbose -v --syscalls "$WORK/sysmix" "$WORK/file"
offers=$(grep "^calltrace: kernel functions: " "$WORK/verbose.err" || true)
[ "$(printf '%s' "$offers" | grep -c .)" = 1 ] || fail "-v: no one line on kernel functions: $(cat "$WORK/verbose.err")"
graph=absent kprobes=absent
grep -qw function_graph /sys/kernel/tracing/available_tracers 2>/dev/null && graph=present
{ [ -e /sys/bus/event_source/devices/kprobe ] || [ -e /sys/kernel/tracing/kprobe_events ]; } && kprobes=present
[[ "$offers" == *"(kprobes $kprobes, function_graph tracer $graph)"* ]] ||
	fail "-v: '$offers', but kprobes are $kprobes and function_graph is $graph"
if [ $kprobes$graph = absentabsent ]; then
	[[ "$offers" == *"cannot be recorded on this kernel"* ]] || fail "-v: '$offers'"
fi

# Without the options, no kernel events.
record off "$WORK/sysmix" "$WORK/file"
dump off
! grep -q "^kernel" "$WORK/off.dump" || fail "kernel events recorded without --syscalls"
pass
