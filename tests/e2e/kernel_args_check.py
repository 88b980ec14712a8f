#!/usr/bin/env python3
"""kernel_args_check.py - compares the system calls calltrace recorded
(replay's lines and calltrace json's calls) with what strace -f printed for
the same program (tests/programs/kernel/sysargs.c): every recorded call of
the compared kinds is a line strace printed (strace's longer path cut where
the copies end), and the calls the program makes are all there.

usage: kernel_args_check.py STRACE REPLAY JSON DATA SOCKET
"""
import collections
import json
import re
import sys

NAMES = {"openat", "read", "write", "connect", "bind", "unlink", "execve",
         "clock_nanosleep", "pipe2", "newfstatat", "accept", "readv", "writev",
         "sendmsg", "recvmsg", "vmsplice"}
PATH_KEPT = 255  # bytes of a path the copies keep


def envp(line):
    """execve's environment: its address as a word, its count kept."""
    return re.sub(r"0x[0-9a-f]+( /\* \d+ vars? \*/\))", r"ENVP\1", line)


def strace_lines(path):
    """strace -f's calls, the pid taken off, split lines joined."""
    unfinished, lines = {}, []
    for raw in open(path):
        m = re.match(r"^(\d+) +(.*)$", raw.rstrip("\n"))
        if not m:
            continue
        pid, text = m.groups()
        if text.endswith(" <unfinished ...>"):
            unfinished[pid] = text[: -len(" <unfinished ...>")]
            continue
        resumed = re.match(r"^<\.\.\. \w+ resumed>(.*)$", text)
        if resumed:
            text = unfinished.pop(pid, "") + resumed.group(1)
        lines.append(envp(re.sub(r"\)\s+= ", ") = ", text)))
    return lines


def cut_path(line):
    """strace's line with its first path cut where the copies end."""
    m = re.match(r'^(\w+\([^"]*")([^"]*)(".*)$', line)
    if not m or len(m.group(2)) <= PATH_KEPT:
        return line
    return m.group(1) + m.group(2)[:PATH_KEPT] + '"...' + m.group(3)[1:]


def name_of(line):
    return line.split("(", 1)[0]


def compared(line):
    """The program's own calls of the compared kinds: not the loader's
    (whose libraries differ, calltrace's runtime preloaded: its fstat of
    each by descriptor, AT_EMPTY_PATH alone)."""
    loader = re.search(r'\.so[."]|"\\177ELF|^newfstatat\(\d+, "", .*, AT_EMPTY_PATH\)', line)
    return name_of(line) in NAMES and not loader


def replay_lines(path):
    out = []
    for raw in open(path):
        m = re.search(r"\[syscall\] (.*);", raw)
        if m:
            out.append(envp(m.group(1)))
    return out


def json_lines(path):
    """'name(args) = value [ERRNO]' of each system call in the JSON."""
    out = []

    def text(v):
        return "NULL" if v is None else str(v)

    def walk(calls):
        for c in calls:
            if c.get("kind") == "syscall" and "arguments" in c:
                args = ", ".join(text(a["value"]) for a in c["arguments"])
                line = "%s(%s)" % (c["function"], args)
                r = c.get("return_value")
                if r:
                    line += " = %s" % text(r["value"])
                    if r.get("errno"):
                        line += " " + r["errno"]
                out.append(envp(line))
            walk(c.get("children", []))

    for tree in json.load(open(path))["call_trees"].values():
        walk(tree["calls"])
    return out


def main():
    strace_path, replay_path, json_path, data, sock = sys.argv[1:6]
    strace = strace_lines(strace_path)
    seen = collections.Counter(cut_path(l) for l in strace)
    # JSON has the errno's name, not its text.
    seen_json = collections.Counter(re.sub(r" \([^()]*\)$", "", cut_path(l)) for l in strace)
    errors = []
    ours = [l for l in replay_lines(replay_path) if compared(l)]
    ours_json = [l for l in json_lines(json_path) if compared(l)]
    for kind, lines, counts in (("replay", ours, seen), ("json", ours_json, seen_json)):
        left = collections.Counter(counts)
        for line in lines:
            if left[line] > 0:
                left[line] -= 1
            else:
                errors.append("%s: strace printed no %s" % (kind, line))
    wanted = [
        'openat(AT_FDCWD, "%s", O_RDONLY|O_CLOEXEC) = 3' % data,
        'read(3, "root:x:0:0:root:/root:/bin/bash\\n"..., 4096) = 2000',
        'write(1, "hello, \\"world\\"\\t\\1\\n", 17) = 17',
        'newfstatat(AT_FDCWD, "%s", {st_mode=S_IFREG|0644, st_size=2000, ...}, 0) = 0' % data,
        "pipe2([3, 4], O_CLOEXEC) = 0",
        'vmsplice(4, [{iov_base="abc", iov_len=3}], 1, 0) = 3',
        'openat(AT_FDCWD, "/%s"..., O_RDONLY) = -1 ENAMETOOLONG (File name too long)'
        % ("a" * (PATH_KEPT - 1)),
        "openat(AT_FDCWD, NULL, O_RDONLY) = -1 EFAULT (Bad address)",
        "openat(AT_FDCWD, 0xffffffffffffffff, O_RDONLY) = -1 EFAULT (Bad address)",
        'connect(3, {sa_family=AF_INET, sin_port=htons(1), sin_addr=inet_addr("127.0.0.1")}, 16)'
        " = -1 ECONNREFUSED (Connection refused)",
        'bind(3, {sa_family=AF_UNIX, sun_path="%s"}, 110) = 0' % sock,
        'connect(4, {sa_family=AF_UNIX, sun_path="%s"}, 110) = 0' % sock,
        "clock_nanosleep(CLOCK_MONOTONIC, 0, {tv_sec=0, tv_nsec=40000000}, NULL) = 0",
        'execve("/bin/true", ["true"], ENVP /* 1 var */) = 0',
        'accept(3, {sa_family=AF_UNIX}, [110 => 2]) = 5',
        'readv(3, [{iov_base="root", iov_len=4}, {iov_base=":x:0:0:root:/root:/bin/bash\\nxxxx"...,'
        ' iov_len=40}], 2) = 44',
        'newfstatat(3, "", {st_mode=S_IFREG|0644, st_size=2000, ...},'
        ' AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH) = 0',
        'writev(1, [{iov_base="abc", iov_len=3}, {iov_base="de\\n", iov_len=3}], 2) = 6',
        'sendmsg(3, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="hello", iov_len=5},'
        ' {iov_base=" world", iov_len=6}], msg_iovlen=2, msg_controllen=0, msg_flags=0}, 0) = 11',
        'recvmsg(4, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="hell", iov_len=4},'
        ' {iov_base="o w", iov_len=3}], msg_iovlen=2, msg_controllen=0, msg_flags=MSG_TRUNC},'
        ' 0) = 7',
        'sendmsg(3, {msg_name={sa_family=AF_INET, sin_port=htons(9),'
        ' sin_addr=inet_addr("127.0.0.1")}, msg_namelen=16, msg_iov=[{iov_base="hello",'
        ' iov_len=5}], msg_iovlen=1, msg_controllen=0, msg_flags=0}, MSG_DONTWAIT) = 5',
    ]
    for line in wanted:
        if line not in seen:
            errors.append("strace printed no %s (the test's program?)" % line)
        if line not in ours:
            errors.append("replay has no %s" % line)
        if re.sub(r" \([^()]*\)$", "", line) not in ours_json:
            errors.append("json has no %s" % line)
    if errors:
        sys.exit("\n".join(errors[:20]))


main()
