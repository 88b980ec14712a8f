#!/usr/bin/env python3
"""kernel_dump.py TRACE - the kernel's and the threads' own events of a trace,
one per line, read straight from the file's bytes (trace_format.h).

  kernel PID TID UNIT enter syscall NR ARG0..ARG5   (hex)
  kernel PID TID UNIT exit RET|-                     (the raw return, signed)
  kernel PID TID UNIT enter offcpu preempted|blocked
  user PID TID UNIT enter ADDR-KIND WHERE            (function, library...)
  user PID TID UNIT exit
  user PID TID UNIT mark TEXT
  thread PID TID lost N                              (THREAD_LOST_CALLS)

UNIT is the event's time unit (tick >> tick_shift), comparable across both
kinds of chunks.  For the tests of --syscalls and --sched.
"""
import struct
import sys

CHUNK = struct.Struct("<IHHIIIIIIQQQ")
KINDS = {0: "function", 1: "library", 2: "syscall", 3: "offcpu", 4: "kernel"}


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def values(b, i):
    n, i = varint(b, i)
    data, out, j = b[i : i + n], [], 0
    while j < len(data):
        tag = data[j]
        j += 1
        if tag in (3, 4):
            out.append(None)
            continue
        m, j = varint(data, j)
        out.append(data[j : j + m])
        j += m
    return out, i + n


def events(payload, base):
    """(unit, what, address, values) of an event stream."""
    fids, unit, i, out, stack = [], base, 0, [], []
    while i < len(payload):
        b0 = payload[i]
        i += 1
        if b0 == 0:
            break
        low = b0 & 3
        if low in (1, 3):
            fid = b0 >> 2
            if low == 3:
                hi, i = varint(payload, i)
                fid |= hi << 6
            d, i = varint(payload, i)
            unit += d
            stack.append(fids[fid])
            out.append([unit, "enter", fids[fid], None])
        elif low == 2:
            d = b0 >> 2
            if d == 63:
                more, i = varint(payload, i)
                d += more
            unit += d
            out.append([unit, "exit", stack.pop() if stack else None, None])
        else:
            kind = b0 >> 2
            if kind == 1:
                a, i = varint(payload, i)
                fids.append(a)
            elif kind in (2,):
                d, i = varint(payload, i)
                unit += d
                out.append([unit, "pause", None, None])
            elif kind == 3:
                d, i = varint(payload, i)
                unit += d
                n, i = varint(payload, i)
                out.append([unit, "mark", payload[i : i + n].decode(errors="replace"), None])
                i += n
            elif kind == 4:
                fid, i = varint(payload, i)
                d, i = varint(payload, i)
                unit += d
                out.append([unit, "exit", fids[fid], None])
            elif kind == 5:
                d, i = varint(payload, i)
                unit += d
                n, i = varint(payload, i)
                out.append([unit, "unwind", n, None])
            elif kind in (6, 7):
                vals, i = values(payload, i)
                if out:
                    out[-1][3] = vals
            else:
                break
    return out


def signed(v):
    x = int.from_bytes(v, "little")
    return x - (1 << 64) if x >= 1 << 63 else x


def describe(src, ev):
    unit, what, addr, vals = ev
    if what == "mark":
        return "%s mark %s" % (unit, addr)
    if what == "exit":
        if src == "kernel":
            ret = signed(vals[0]) if vals else "-"
            return "%s exit %s" % (unit, ret)
        return "%s exit" % unit
    if what != "enter":
        return "%s %s" % (unit, what)
    kind, where = KINDS.get(addr >> 60 & 7, "?"), addr & ((1 << 60) - 1)
    if kind == "syscall":
        args = " ".join("%x" % int.from_bytes(v, "little") for v in (vals or []))
        return "%s enter syscall %d %s" % (unit, where, args)
    if kind == "offcpu":
        return "%s enter offcpu %s" % (unit, "preempted" if where == 0 else "blocked")
    return "%s enter %s %x" % (unit, kind, where)


def main():
    data = open(sys.argv[1], "rb").read()
    off = 4096
    while off + CHUNK.size <= len(data):
        magic, kind, hsize, length, used, image, pid, tid, seq, base, _, _ = CHUNK.unpack_from(
            data, off
        )
        if magic != 0x4B435443 or length < CHUNK.size or length % 8:
            off += 8
            continue
        if kind == 4:
            event, name_len = struct.unpack_from("<II", data, off + hsize)
            name = data[off + hsize + 8 : off + hsize + 8 + name_len].decode(errors="replace")
            if event == 4:
                print("thread %d %d lost %s" % (pid, tid, name))
        if kind in (1, 7):
            payload = data[off + hsize : off + hsize + (used or length - hsize)]
            src = "kernel" if kind == 7 else "user"
            for ev in events(payload, base):
                print("%s %d %d %s" % (src, pid, tid, describe(src, ev)))
        off += length


if __name__ == "__main__":
    main()
