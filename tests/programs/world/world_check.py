#!/usr/bin/env python3
"""world_check.py - checks a recording of tests/programs/world/world.c.

  world_check.py tree REPLAY RESULTS DIR [attach]   the calls between the marks, as
      `calltrace replay` shows them: every library call with its arguments
      and result, the system calls nested under it, the blocked off-CPU
      interval inside the sleep's clock_nanosleep
  world_check.py json JSON RESULTS DIR      the same calls in `calltrace json`:
      open's and connect's arguments by name with their values and types,
      the results, the system call inside each
  world_check.py counts JSON STRACE        every system call between the
      program's close(-100) and close(-101), counted per name in the
      program's threads and processes, as `calltrace json` gives them and as
      `strace -f -qq -o STRACE` saw the same run

RESULTS is the program's stdout (`name value` lines: the descriptors, byte
counts, port and child it got).  WORLD_NO_KERNEL=1: recorded without the
kernel's events, the library calls alone are checked.  Prints one line per difference; exits 1
if there is any.
"""
import collections
import json
import os
import re
import sys

HEX = re.compile(r"0x[0-9a-f]+")
LINE = re.compile(r"^\s*(?:[0-9.]+ [a-z]+)?\s*\[\s*(\d+)\] \| (.*)$")

# The calls between the marks.  {name} is the program's value of name;
# 0x_ stands for any address.  A system call's arguments are what it was
# given or filled in, as strace shows them.  fork's subtree lists only the clone: the
# runtime's own handling of a fork (its session lock) makes system calls
# there too.
EXPECTED = """\
do_read()
  open@libc.so.6("{dir}/in.txt", O_RDONLY) = {fd_in}
    [syscall] openat(AT_FDCWD, "{dir}/in.txt", O_RDONLY) = {fd_in}
  read@libc.so.6({fd_in}, 0x_, 64) = {got}
    [syscall] read({fd_in}, "some bytes\\n", 64) = {got}
  close@libc.so.6({fd_in}) = 0
    [syscall] close({fd_in}) = 0
do_write()
  open@libc.so.6("{dir}/out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0600) = {fd_out}
    [syscall] openat(AT_FDCWD, "{dir}/out.txt", O_WRONLY|O_CREAT|O_TRUNC, 0600) = {fd_out}
  write@libc.so.6({fd_out}, 0x_, {got}) = {put}
    [syscall] write({fd_out}, "some bytes\\n", {got}) = {put}
  close@libc.so.6({fd_out}) = 0
    [syscall] close({fd_out}) = 0
do_sleep()
  nanosleep@libc.so.6(0x_, NULL) = 0
    [syscall] clock_nanosleep(CLOCK_REALTIME, 0, {{tv_sec=0, tv_nsec=40000000}}, NULL) = 0
do_alloc()
  malloc@libc.so.6(1048576) = 0x_
    [syscall] mmap(NULL, 1052672, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x_
  memset@libc.so.6(0x_, 1, 1048576) = 0x_
  free@libc.so.6(0x_)
    [syscall] munmap(0x_, 1052672) = 0
do_connect()
  socket@libc.so.6(AF_INET, SOCK_STREAM, 0) = {fd_server}
    [syscall] socket(AF_INET, SOCK_STREAM, 0) = {fd_server}
  bind@libc.so.6({fd_server}, {{AF_INET, 127.0.0.1:0}}, 16) = 0
    [syscall] bind({fd_server}, {{sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}}, 16) = 0
  listen@libc.so.6({fd_server}, 1) = 0
    [syscall] listen({fd_server}, 1) = 0
  getsockname@libc.so.6({fd_server}, 0x_, 0x_) = 0
    [syscall] getsockname({fd_server}, {{sa_family=AF_INET, sin_port=htons({port}), sin_addr=inet_addr("127.0.0.1")}}, [16]) = 0
  socket@libc.so.6(AF_INET, SOCK_STREAM, 0) = {fd_client}
    [syscall] socket(AF_INET, SOCK_STREAM, 0) = {fd_client}
  connect@libc.so.6({fd_client}, {{AF_INET, 127.0.0.1:{port}}}, 16) = 0
    [syscall] connect({fd_client}, {{sa_family=AF_INET, sin_port=htons({port}), sin_addr=inet_addr("127.0.0.1")}}, 16) = 0
  accept@libc.so.6({fd_server}, NULL, NULL) = {fd_peer}
    [syscall] accept({fd_server}, NULL, NULL) = {fd_peer}
  send@libc.so.6({fd_client}, 0x_, 1, 0) = 1
    [syscall] sendto({fd_client}, "x", 1, 0, NULL, 0) = 1
  recv@libc.so.6({fd_peer}, 0x_, 1, 0) = 1
    [syscall] recvfrom({fd_peer}, "x", 1, 0, NULL, NULL) = 1
  close@libc.so.6({fd_peer}) = 0
    [syscall] close({fd_peer}) = 0
  close@libc.so.6({fd_client}) = 0
    [syscall] close({fd_client}) = 0
  close@libc.so.6({fd_server}) = 0
    [syscall] close({fd_server}) = 0
do_exec()
  fork@libc.so.6() = {child}
    [syscall] clone(0x_, NULL, NULL, 0x_, 0) = {child}
  waitpid@libc.so.6({child}, NULL, 0) = {child}
    [syscall] wait4({child}, {wait_status}, 0, NULL) = {child}
"""

errors = []


class Node:
    def __init__(self, text, parent):
        self.text, self.result, self.parent, self.children = text, None, parent, []

    def render(self, depth=0):
        line = "  " * depth + self.text + ("" if self.result is None else " = " + self.result)
        return [line] + [l for c in self.children for l in c.render(depth + 1)]


def parse_replay(path):
    """The replay's sections (one per thread and image), each a root Node."""
    sections, root, node = [], None, None
    for raw in open(path, errors="replace"):
        raw = raw.rstrip("\n")
        if raw.startswith("# pid "):
            root = node = Node(raw[2:], None)
            sections.append(root)
            continue
        m = LINE.match(raw)
        if not m or node is None:
            continue
        text = m.group(2).strip()
        if text.startswith("}"):
            result = re.match(r"^\}(?: = (.*?);)?(?: /\*.*\*/)?$", text)
            if node.parent is not None:
                node.result = result.group(1) if result else None
                node = node.parent
        elif text.endswith(" {"):
            child = Node(text[:-2], node)
            node.children.append(child)
            node = child
        else:
            leaf = re.match(r"^(.*?)(?: = (.*))?;$", text)
            if leaf:
                child = Node(leaf.group(1), node)
                child.result = leaf.group(2)
                node.children.append(child)
            else:
                node.children.append(Node(text, node))
    return sections


def is_runtime_own(node):
    """The runtime's own system calls: a switch of its trace window
    (newfstatat, fallocate, pwritev on its descriptor, which it keeps at
    1000 or above; prlimit64 for RLIMIT_FSIZE), and the reads of a string
    argument through process_vm_readv where its fault handler is not
    installed (under attach)."""
    t = node.text
    return bool(re.match(r"\[syscall\] (newfstatat|fallocate|pwritev|fcntl)\(\d{4,}, ", t) or
                t.startswith("[syscall] prlimit64(0, 1, ") or
                t.startswith("[syscall] process_vm_readv("))


def check_tree(replay, results, directory, how="record"):
    attached = how == "attach"
    values = dict(line.split() for line in open(results) if len(line.split()) == 2)
    # The steps are main's calls, or the section's own where main was
    # entered before the recording began (attach).
    def holders(node):
        if any(c.text == "do_read()" for c in node.children):
            yield node
        for c in node.children:
            yield from holders(c)

    found = [h for s in parse_replay(replay) for h in holders(s)]
    if len(found) != 1:
        errors.append("%d calls or threads hold do_read, want 1" % len(found))
        return
    steps = [c for c in found[0].children if c.text.startswith("do_")]
    # The sleep's off-CPU interval, then every off-CPU interval and the
    # runtime's own calls are set aside.
    sleeps = [n for s in steps if s.text == "do_sleep()" for l in s.children for n in l.children
              if n.text.startswith("[syscall] clock_nanosleep(")]
    blocked = [n for s in sleeps for n in s.children if n.text == "/* off-CPU: blocked */"]
    no_kernel = os.environ.get("WORLD_NO_KERNEL") == "1"
    if not no_kernel and (len(sleeps) != 1 or not blocked):
        errors.append("no blocked off-CPU interval inside the sleep's clock_nanosleep")

    def prune(node):
        node.children = [c for c in node.children
                         if not c.text.startswith("/* off-CPU") and not is_runtime_own(c)]
        if node.text.startswith("fork@"):
            node.children = [c for c in node.children if c.text.startswith("[syscall] clone(")]
        for c in node.children:
            prune(c)

    got = []
    for s in steps:
        prune(s)
        got += s.render()
    got = [HEX.sub("0x_", l) for l in got]
    # The runtime wraps waitpid (to learn how its children ended): a
    # program's waitpid that `record` preloaded it for reaches the C
    # library's wait4 with a status to fill even when the program gave NULL.
    # Under attach the program's slot was bound before the runtime came.
    wait_status = "NULL" if attached else "0x_"
    want = EXPECTED.format(dir=directory, wait_status=wait_status, **values).split("\n")[:-1]
    want = [HEX.sub("0x_", l) for l in want if not (no_kernel and "[syscall]" in l)]
    if got != want:
        for i, (w, g) in enumerate(zip(want + [""] * len(got), got + [""] * len(want))):
            if w != g:
                errors.append("line %d: want '%s', got '%s'" % (i + 1, w, g))
                break
        errors.append("(%d lines wanted, %d got)" % (len(want), len(got)))


def check_json(path, results, directory):
    values = dict(line.split() for line in open(results) if len(line.split()) == 2)
    trees = json.load(open(path))["call_trees"]
    found = []

    def walk(calls):
        for c in calls:
            if c.get("kind") == "library" and c["function"] in ("open", "connect"):
                found.append(c)
            walk(c.get("children", []))

    for t in trees.values():
        walk(t["calls"])

    def args(c):
        return [(a["name"], a["type"], a["value"]) for a in c.get("arguments") or []]

    def summary(c):
        kids = [(k["function"], k.get("kind")) for k in c.get("children", []) if k.get("kind") != "sched"]
        return (c["function"], args(c), c.get("return_value"), kids)

    fd_in, fd_out, fd_client = (int(values[k]) for k in ("fd_in", "fd_out", "fd_client"))
    no_kernel = os.environ.get("WORLD_NO_KERNEL") == "1"
    want = [
        ("open", [("path", "const char *", directory + "/in.txt"), ("flags", "int", "O_RDONLY")],
         {"type": "int", "value": fd_in}, [("openat", "syscall")]),
        ("open", [("path", "const char *", directory + "/out.txt"),
                  ("flags", "int", "O_WRONLY|O_CREAT|O_TRUNC"), ("mode", "mode_t", "0600")],
         {"type": "int", "value": fd_out}, [("openat", "syscall")]),
        ("connect", [("sockfd", "int", fd_client),
                     ("addr", "const struct sockaddr *", "{AF_INET, 127.0.0.1:%s}" % values["port"]),
                     ("addrlen", "unsigned int", 16)],
         {"type": "int", "value": 0}, [("connect", "syscall")]),
    ]
    if no_kernel:
        want = [w[:3] + ([],) for w in want]
    got = [summary(c) for c in found]
    if got != want:
        errors.append("json: want %s, got %s" % (want, got))


def json_syscalls(path):
    """(start_ns, tid, name, first argument) of every system call."""
    trees = json.load(open(path))["call_trees"]
    out = []

    def walk(calls, tid):
        for c in calls:
            if c.get("kind") == "syscall":
                args = c.get("arguments") or [{}]
                out.append((c["start_ns"], tid, c["function"], args[0].get("value")))
            walk(c.get("children", []), tid)

    for t in trees.values():
        walk(t["calls"], t["thread_id"])
    return sorted(out, key=lambda s: s[0])


OWN_BEGIN, OWN_END = "syscall_0xca11700", "syscall_0xca11701"  # the tracer's work (own_work.h)


def strace_window(path, tids):
    """What strace saw between the marks, but the tracer's own work: the
    system calls between its begin and end marker calls, which the trace
    leaves out too."""
    counts, inside, seen_end = collections.Counter(), False, False
    own = collections.Counter()
    line = re.compile(r"^(\d+)\s+(?:<\.\.\. )?(\w+)(\(| resumed>)(.*)")
    for raw in open(path):
        m = line.match(raw)
        if not m or int(m.group(1)) not in tids or m.group(3) != "(":
            continue
        name, rest, tid = m.group(2), m.group(4), int(m.group(1))
        if name == OWN_BEGIN:
            own[tid] += 1
        elif name == OWN_END:
            own[tid] = max(own[tid] - 1, 0)
        elif own[tid]:
            continue
        # (A line may end "<unfinished ...>" where another thread's call
        # came between, as on a loaded machine.)
        elif name == "close" and re.match(r"-100[) ]", rest):
            inside = True
        elif name == "close" and re.match(r"-101[) ]", rest):
            seen_end = True
            break
        elif inside:
            counts[name] += 1
    if not seen_end:
        errors.append("strace: the marks close(-100), close(-101) were not both seen")
    return counts


def check_counts(json_path, strace_path):
    calls = json_syscalls(json_path)
    # (-100 is shown as AT_FDCWD in close's descriptor too.)
    begin = [c[0] for c in calls if c[2] == "close" and c[3] in (-100, "AT_FDCWD")]
    end = [c[0] for c in calls if c[2] == "close" and c[3] == -101]
    if len(begin) != 1 or len(end) != 1:
        errors.append("%d close(-100) and %d close(-101) recorded, want 1 each" % (len(begin), len(end)))
        return
    mine = collections.Counter(c[2] for c in calls if begin[0] < c[0] < end[0])
    theirs = strace_window(strace_path, {c[1] for c in calls})
    for name in sorted(set(mine) | set(theirs)):
        if mine[name] != theirs[name]:
            errors.append("%s: %d recorded between the marks, strace saw %d" % (name, mine[name], theirs[name]))
    for name in ("openat", "read", "write", "clock_nanosleep", "mmap", "munmap", "socket", "connect",
                 "accept", "clone", "execve", "wait4", "getppid"):
        if theirs[name] < 1:
            errors.append("strace saw no %s between the marks" % name)
    print(" ".join("%s=%d" % kv for kv in sorted(mine.items())))


if __name__ == "__main__":
    if len(sys.argv) in (5, 6) and sys.argv[1] == "tree":
        check_tree(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == "json":
        check_json(*sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "counts":
        check_counts(*sys.argv[2:])
    else:
        sys.exit(__doc__)
    for e in errors:
        print(e, file=sys.stderr)
    sys.exit(1 if errors else 0)
