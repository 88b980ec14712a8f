#!/usr/bin/env python3
"""libcall_tree.py - the call trees of `calltrace json` with library calls named.

  libcall_tree.py JSON [--info INFO] MODULE[@BIAS]...

A library call ("kind": "library"; in a trace before the reader knew kinds,
an address with CALL_LIBRARY (1) in bits 60..62) is at the address of the
GOT slot it went through (or, for a pointer dlsym returned, of the
function).  Each MODULE is an ELF file whose
relocations (readelf -rW) name its slots, loaded at BIAS (hex, default 0: a
non-PIE executable, or, with --info, where the output of `calltrace info`
INFO says the module was loaded); a library call is printed as "@name" (a dlsym pointer
whose address is a symbol of a MODULE: "@*name").  Prints every tree as
indented text, two spaces a level, threads in order of their first call;
an address no MODULE names is printed as "@?0x...", which fails the check
the test makes; a name the reader gave that differs from the slot's symbol
is added as " (named NAME)".
"""
import json
import re
import subprocess
import sys

KIND_SHIFT = 60


def slot_names(path, bias):
    names = {}
    out = subprocess.run(["readelf", "-rW", path], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        m = re.match(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+R_(?:X86_64|AARCH64)_(JUMP_SLOT|GLOB_DAT)\s+[0-9a-f]+\s+(\S+)", line)
        if m:
            name, _, version = m.group(3).partition("@")
            if version and not version.startswith("GLIBC"):
                name += "@" + version.lstrip("@")  # symbol versioning: which one
            names[int(m.group(1), 16) + bias] = "@" + name
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True)
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TtWi":
            names.setdefault(int(parts[0], 16) + bias, "@*" + parts[2].split("@")[0])
    return names


def info_bias(info, path):
    """The load bias of `path` from `calltrace info`'s module lines."""
    for line in open(info):
        m = re.match(r"\s*module 0x([0-9a-f]+)-0x[0-9a-f]+ (.*?)( build-id [0-9a-f]+)?( \(unloaded\))?$", line)
        if m and m.group(2) == path:
            out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True, check=True)
            vaddrs = [int(l.split()[2], 16) for l in out.stdout.splitlines() if l.split()[:1] == ["LOAD"]]
            return int(m.group(1), 16) - (min(vaddrs) & ~0xFFF)
    sys.exit("libcall_tree: %s is no module of %s" % (path, info))


def name_of(call, names):
    address = int(call["address"], 16)
    if call.get("kind", "library" if address >> KIND_SHIFT == 1 else "function") != "library":
        return call["function"]
    where = address & ((1 << KIND_SHIFT) - 1)
    name = names.get(where, "@?" + hex(where))
    # The reader names it from the same relocation (or symbol): they agree.
    ours = name.lstrip("@*").split("@")[0]
    if not name.startswith("@?") and call["function"].split("@")[0] not in (ours, hex(address)):
        name += " (named %s)" % call["function"]
    return name


def render(calls, names, depth, out):
    for call in calls:
        out.append("  " * depth + name_of(call, names))
        render(call.get("children", []), names, depth + 1, out)


def main():
    doc = json.load(open(sys.argv[1]))
    names = {}
    args = sys.argv[2:]
    info = None
    if args[:1] == ["--info"]:
        info, args = args[1], args[2:]
    for spec in args:
        path, _, bias = spec.partition("@")
        if bias:
            bias = int(bias, 16)
        else:
            bias = info_bias(info, path) if info else 0
        names.update(slot_names(path, bias))
    trees = sorted(doc["call_trees"].values(), key=lambda t: t["calls"][0]["start_ns"] if t["calls"] else 0)
    out = []
    for tree in trees:
        render(tree["calls"], names, 0, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
