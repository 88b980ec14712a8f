#!/usr/bin/env python3
"""call_layers.py - which source file calls which, from the built objects.

Reads the object files of one directory of the build (e.g.
build/obj/src/ptrace) with `nm`: a file A "calls" a file B when A's object
leaves undefined a symbol that B's object defines.  Prints that graph, the
cycles in it (each strongly connected component of more than one file, and
the edges that close it), and the files in layers (a file's layer is one
above the highest layer it calls).

    scripts/call_layers.py [--only NAME,NAME...] [--quiet] OBJDIR

--only keeps the files so named (without .o) and the edges between them.
Exit status: 0 when the graph has no cycle, 1 when it has one, 2 on bad
input (one line on stderr).
"""
import argparse
import os
import subprocess
import sys


def nm_symbols(path):
    """(defined, undefined) global symbol sets of one object file."""
    out = subprocess.run(["nm", "-P", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"nm {path}: {out.stderr.strip()}")
    defined, undefined = set(), set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVWGS":  # global (upper case) definitions only
            defined.add(name)
    return defined, undefined


def build_graph(objdir, only):
    objects = sorted(f for f in os.listdir(objdir) if f.endswith(".o"))
    if not objects:
        raise RuntimeError(f"no object files in {objdir}")
    files = {}
    for obj in objects:
        name = obj[:-2]
        if only is None or name in only:
            files[name] = nm_symbols(os.path.join(objdir, obj))
    if only is not None and set(only) - set(files):
        missing = ", ".join(sorted(set(only) - set(files)))
        raise RuntimeError(f"no object for: {missing}")
    owner = {}
    for name, (defined, _) in files.items():
        for sym in defined:
            owner[sym] = name
    edges = {name: {} for name in files}
    for name, (_, undefined) in files.items():
        for sym in sorted(undefined):
            callee = owner.get(sym)
            if callee is not None and callee != name:
                edges[name].setdefault(callee, []).append(sym)
    return edges


def strongly_connected(edges):
    """Tarjan's algorithm, iterative; components in reverse topological order."""
    index, low, on_stack, stack, comps = {}, {}, set(), [], []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                comps.append(sorted(comp))
    return comps


def layers(edges, comps):
    """Layer of each component: 0 for those that call nothing here."""
    comp_of = {f: i for i, comp in enumerate(comps) for f in comp}
    layer = {}
    for i, comp in enumerate(comps):  # callees come first in Tarjan's order
        callees = {comp_of[c] for f in comp for c in edges[f]} - {i}
        layer[i] = 1 + max((layer[c] for c in callees), default=-1)
    by_layer = {}
    for i, comp in enumerate(comps):
        by_layer.setdefault(layer[i], []).append(comp)
    return by_layer


def report(edges, quiet):
    comps = strongly_connected(edges)
    cycles = [c for c in comps if len(c) > 1]
    if not quiet:
        print("calls (file -> file: symbols):")
        for f in sorted(edges):
            for callee in sorted(edges[f]):
                print(f"  {f} -> {callee}: {' '.join(edges[f][callee])}")
        print("layers (lowest first; [a b] = files in one cycle):")
        for level, group in sorted(layers(edges, comps).items()):
            names = " ".join(c[0] if len(c) == 1 else "[" + " ".join(c) + "]" for c in sorted(group))
            print(f"  {level}: {names}")
    if not cycles:
        print("no cycles")
        return 0
    for comp in cycles:
        members = set(comp)
        print(f"cycle among {len(comp)} files: {' '.join(comp)}")
        for f in comp:
            for callee in sorted(edges[f]):
                if callee in members:
                    print(f"  {f} -> {callee}: {' '.join(edges[f][callee])}")
    return 1


def main():
    ap = argparse.ArgumentParser(description="File-to-file call graph of a build directory, and its cycles.")
    ap.add_argument("objdir", help="directory of .o files, e.g. build/obj/src/ptrace")
    ap.add_argument("--only", help="comma-separated file names (no .o) to keep")
    ap.add_argument("--quiet", action="store_true", help="print the cycles only")
    args = ap.parse_args()
    if not os.path.isdir(args.objdir):
        print(f"call_layers: not a directory: {args.objdir}", file=sys.stderr)
        return 2
    only = None if args.only is None else [n for n in args.only.split(",") if n]
    try:
        edges = build_graph(args.objdir, only)
    except (RuntimeError, OSError) as err:
        print(f"call_layers: {err}", file=sys.stderr)
        return 2
    return report(edges, args.quiet)


if __name__ == "__main__":
    sys.exit(main())
