#!/usr/bin/env python3
"""check_code.py PROGRAM PID - the code of PROGRAM in process PID is byte
for byte the file's: every executable mapping of the file, read through
/proc/PID/mem, against the same range of the file.  Exits 1 naming the
first differences (file offset, live byte, file byte)."""
import os
import sys


def main():
    prog, pid = sys.argv[1], sys.argv[2]
    path = os.path.realpath(prog)
    data = open(path, "rb").read()
    diffs, checked = [], 0
    with open(f"/proc/{pid}/mem", "rb") as mem:
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            if len(f) < 6 or f[5] != path or "x" not in f[1]:
                continue
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            offset = int(f[2], 16)
            mem.seek(lo)
            live = mem.read(hi - lo)
            part = data[offset:offset + len(live)]
            checked += len(part)
            for i, (a, b) in enumerate(zip(live, part)):
                if a != b:
                    diffs.append(f"{offset + i:#x}: {a:02x} (file {b:02x})")
    if not checked:
        sys.exit(f"no code of {path} mapped in process {pid}")
    if diffs:
        sys.exit(f"{len(diffs)} bytes of {os.path.basename(path)}'s code differ in process "
                 f"{pid}: {', '.join(diffs[:4])}")


if __name__ == "__main__":
    main()
