#!/usr/bin/env python3
"""kernel_check.py DUMP STRACE - checks the kernel events of a sysmix run
(tests/programs/kernel/sysmix.c) recorded with --syscalls --sched under
strace -f -n, against what strace saw of the same run.

DUMP is kernel_dump.py's output.  Between the program's close(-100) and
close(-101), every system call of the program's threads and processes is
counted on both sides; the counts must be equal.  Then: the blocked off-CPU
interval inside the sleep's clock_nanosleep, the forked child's getpgid()s
in the child, the thread's getuid()s in the thread, the exec'd image's
getgid()s, and each system call inside the function of the program that
made it (times exact on one clock).  Prints one line per failure, nothing
when all is well.
"""
import collections
import re
import sys

NR = {"close": 3, "write": 1, "read": 0, "lseek": 8, "openat": 257, "clock_nanosleep": 230,
      "clone": 56, "clone3": 435, "getpgid": 121, "getppid": 110, "getuid": 102, "getgid": 104, "execve": 59}
MARK_BEGIN, MARK_END = 0xFFFFFF9C, 0xFFFFFF9B  # close(-100), close(-101)

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)


def read_dump(path):
    """Per (src, pid, tid): events (unit, line fields), in file order."""
    streams = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        streams[(f[0], int(f[1]), int(f[2]))].append((int(f[3]), f[4:]))
    return streams


def kernel_calls(streams):
    """Every kernel enter: (unit, pid, tid, nr, args, path of open kinds)."""
    calls = []
    for (src, pid, tid), evs in streams.items():
        if src != "kernel":
            continue
        stack = []
        for unit, f in evs:
            if f[0] == "enter":
                what = (f[1], int(f[2]) if f[1] == "syscall" else f[2])
                stack.append(what)
                if f[1] == "syscall":
                    args = [int(a, 16) for a in f[3:9]]
                    calls.append((unit, pid, tid, int(f[2]), args, list(stack)))
            elif f[0] == "exit" and stack:
                stack.pop()
    calls.sort(key=lambda c: c[0])
    return calls


def marker_units(calls, pid):
    begin = [c[0] for c in calls if c[3] == 3 and c[4][0] & 0xFFFFFFFF == MARK_BEGIN and c[2] == pid]
    end = [c[0] for c in calls if c[3] == 3 and c[4][0] & 0xFFFFFFFF == MARK_END and c[2] == pid]
    return (begin[0] if begin else None), (end[0] if end else None)


def strace_counts(path, tids):
    counts, inside = collections.Counter(), False
    line_re = re.compile(r"^(\d+)\s+\[\s*(\d+)\]\s+(\w+)\((.*)")
    for line in open(path):
        m = line_re.match(line)
        if not m or int(m.group(1)) not in tids:
            continue
        nr, rest = int(m.group(2)), m.group(4)
        if nr == 3 and re.match(r"-100\b", rest):
            inside = True
        elif nr == 3 and re.match(r"-101\b", rest):
            return counts
        elif inside:
            counts[nr] += 1
    errors.append("strace: the markers close(-100), close(-101) were not both seen")
    return counts


def user_calls(streams, pid):
    """The main thread's calls under main, in order: (enter unit, exit unit)."""
    out, depth = [], 0
    for unit, f in streams.get(("user", pid, pid), []):
        if f[0] == "enter":
            depth += 1
            if depth == 2:
                start = unit
        elif f[0] == "exit":
            if depth == 2:
                out.append((start, unit))
            depth -= 1
    return out


def main():
    streams = read_dump(sys.argv[1])
    calls = kernel_calls(streams)
    starts = [c for c in calls if c[3] == 3 and c[4][0] & 0xFFFFFFFF == MARK_BEGIN]
    check(len(starts) == 1, "%d close(-100) in the kernel events, want 1" % len(starts))
    if not starts:
        return
    pid = starts[0][2]
    # The marks (when the runtime gives calltrace_mark) are the main thread's.
    marks = [k for k, evs in streams.items() if k[0] == "user" and any(f[0] == "mark" for _, f in evs)]
    check(marks in ([], [("user", pid, pid)]), "the marks are in threads %s" % marks)
    begin, end = marker_units(calls, pid)
    check(begin is not None and end is not None, "no close(-100)/close(-101) in the kernel events")
    if begin is None or end is None:
        return
    inside = [c for c in calls if begin < c[0] < end]
    # Only the program's processes (each has calls of its own), never the tool's.
    user_pids = {k[1] for k in streams if k[0] == "user"}
    kernel_pids = {k[1] for k in streams if k[0] == "kernel"}
    check(kernel_pids <= user_pids,
          "kernel events of processes %s, not the program's" % sorted(kernel_pids - user_pids))
    tids = {k[2] for k in streams if k[0] == "kernel"}
    mine = collections.Counter(c[3] for c in inside)
    theirs = strace_counts(sys.argv[2], tids)
    for nr in sorted(set(mine) | set(theirs)):
        check(mine[nr] == theirs[nr],
              "syscall %d: %d recorded, strace saw %d" % (nr, mine[nr], theirs[nr]))
    check(theirs[NR["write"]] >= 3 and theirs[NR["clock_nanosleep"]] >= 1,
          "strace saw too little: %s" % dict(theirs))

    # The sleep: blocked, off the CPU, inside clock_nanosleep.
    sleeps = [c for c in inside if c[3] == NR["clock_nanosleep"] and c[2] == pid]
    check(len(sleeps) == 1, "%d clock_nanosleep in the main thread, want 1" % len(sleeps))
    main_stream = streams[("kernel", pid, pid)]
    nested = False
    for i, (unit, f) in enumerate(main_stream[:-1]):
        if f[:3] == ["enter", "syscall", str(NR["clock_nanosleep"])] and begin < unit < end:
            nested = main_stream[i + 1][1][:3] == ["enter", "offcpu", "blocked"]
    check(nested, "no blocked off-CPU interval right inside the sleep's clock_nanosleep")

    # The forked child, the thread, the exec'd image.
    def where(nr):
        return collections.Counter((c[1], c[2]) for c in inside if c[3] == nr)

    getpgids = where(NR["getpgid"])
    check(list(getpgids.values()) == [3] and all(p != pid and p == t for p, t in getpgids),
          "getpgid: %s, want 3 in one child process" % dict(getpgids))
    getuids = where(NR["getuid"])
    check(list(getuids.values()) == [2] and all(p == pid and t != pid for p, t in getuids),
          "getuid: %s, want 2 in one thread of the main process" % dict(getuids))
    getgids = where(NR["getgid"])
    execs = where(NR["execve"])
    check(list(getgids.values()) == [4] and all(p != pid for p, _ in getgids) and
          set(execs) == set(getgids),
          "getgid: %s, execve: %s, want 4 getgid in the process that exec'd" %
          (dict(getgids), dict(execs)))

    # Each system call inside the function that made it: mark, do_files,
    # do_sleep, do_fork, do_thread, do_exec, mark.
    spans = user_calls(streams, pid)
    check(len(spans) == 7, "%d calls under main, want 7" % len(spans))
    if len(spans) == 7:
        expect = {0: [110], 1: [257, 1, 8, 0, 3], 2: [230], 3: [56], 4: [435], 5: [56]}
        for i, nrs in expect.items():
            lo, hi = spans[i]
            for nr in nrs:
                got = [c for c in inside if c[3] == nr and c[2] == pid and lo < c[0] < hi]
                check(got, "no syscall %d of the main thread inside call #%d (%d..%d)" %
                      (nr, i, lo, hi))
        for c in inside:
            if c[2] == pid and not any(lo < c[0] < hi for lo, hi in spans):
                errors.append("syscall %d at %d is outside every call under main" % (c[3], c[0]))


main()
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
