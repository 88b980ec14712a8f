#!/usr/bin/env bash
# kernel_own.sh - record --syscalls leaves out the tracer's own system calls
# (src/format/own_work.h): a program that makes 300 getppid among 20000
# calls (small windows: many are replaced), a dlopen (a module record) and
# one write shows in main exactly those 300 getppid, the one write and the
# dlopen's own loading; no window refill (fallocate, mmap of the trace),
# no record written (pwritev), no session start or end (getpid, prlimit64,
# readlink) and no mark is in any thread's tree.  Needs root (or CAP_PERFMON).
# shellcheck source=tests/e2e/lib.sh
source "$(dirname "$0")/lib.sh"
setup
build_c own_calls "$PROGRAMS/kernel/own_calls.c" -ldl

record own --syscalls --buffer-size 16K "$WORK/own_calls"
if grep -q "not recorded" "$WORK/own.err"; then
	skip "$(grep "not recorded" "$WORK/own.err")"
fi
[ "$RC" = 0 ] || fail "record exited $RC: $(head -c 300 "$WORK/own.err")"
[ "$(cat "$WORK/own.out")" = done ] || fail "program output: $(cat "$WORK/own.out")"
to_json own
python3 - "$WORK/own.json" <<'PY' 2>"$WORK/check.err" || fail "$(cat "$WORK/check.err")"
import collections, json, sys
trees = json.load(open(sys.argv[1]))["call_trees"]
def walk(calls, out, inside):
    for c in calls:
        if c.get("kind") == "syscall":
            out[(inside, c["function"])] += 1
        walk(c.get("children", []), out, inside or c["function"] == "main")
seen = collections.Counter()
for t in trees.values():
    walk(t["calls"], seen, False)
names = collections.Counter()
for (inside, name), n in seen.items():
    names[name] += n
# (prlimit64 is the C library's too, before main: the size limit's read is
# checked in main below.)
own = {"fallocate", "pwritev", "pwrite64", "getpid", "readlink", "fcntl", "gettid",
       "sigaltstack", "prctl", "rt_sigprocmask"}
bad = sorted(n for n in names if n in own or n.startswith("syscall_"))
if bad:
    sys.exit("the tracer's own system calls in the tree: %s" % ", ".join(
        "%s x%d" % (n, names[n]) for n in bad))
in_main = {name: n for (inside, name), n in seen.items() if inside}
if in_main.get("getppid") != 300:
    sys.exit("getppid in main: %s, want 300" % in_main.get("getppid"))
if in_main.get("write") != 1:
    sys.exit("write in main: %s, want 1" % in_main.get("write"))
# The dlopen's loading; getrandom too: the C library's first malloc (the
# dlopen's, the runtime's start made none) asks for its tcache's key.
loading = {"openat", "read", "pread64", "newfstatat", "mmap", "mprotect", "munmap", "close", "brk",
           "getrandom"}
other = sorted(set(in_main) - loading - {"getppid", "write"})
if other:
    sys.exit("unexpected system calls in main: %s" % ", ".join(other))
PY
pass
