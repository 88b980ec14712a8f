#!/usr/bin/env python3
"""check_tree.py - reads the JSON of `calltrace json` for the end-to-end tests.

Subcommands (each exits 1 with a one-line reason on stderr when a check fails):

  render JSON            every call tree as indented text, in an order that does
                         not depend on pids or timing (see render_all)
  trees JSON             one line per tree: key pid tid image root thread_name
  meta JSON FIELD        prints metadata[FIELD]
  count JSON [FUNCTION]  number of calls in all trees (of FUNCTION only)
  schema JSON [--command CMD] [--total] [--files]
                         checks the shape of the document: fields and their
                         types, times that nest, the tree keys; --command: the
                         recorded command equals CMD; --total: total_calls
                         equals the calls in the trees; --files: every call has
                         a file and a line
  lines JSON MODULE... [--exact MODULE] [--key KEY] [--demangle]
                         every call's file:line equals what addr2line says for
                         the function's address (from nm) in the module that
                         defines it; the load bias of a module is the same for
                         all its functions in a process image and page-aligned;
                         --exact: runtime addresses equal nm's (a non-PIE exe);
                         --key: only these trees; --demangle: C++ names
  replay-order REPLAY JSON
                         the calls that `calltrace replay` printed, thread by
                         thread, are the calls of the JSON trees in the same
                         order at the same depths: an entry is "NAME {" or
                         "NAME;" after "[ tid] | " and two spaces a level,
                         maybe followed by /* comments */,
                         NAME being the function as in the JSON, with "()"
                         added to a name that has no parameter list
  report-calls REPORT FUNCTION
                         the call count of FUNCTION in the text of
                         `calltrace report`: the number under the "Calls"
                         header in the row whose "Function" column is FUNCTION

The text of a tree is one line per call, two spaces of indentation per level.
A run of identical sibling subtrees is written once with " [xN]" after the
name; a call that never returned gets " [unfinished]".
"""

import json
import re
import subprocess
import sys
from collections import defaultdict

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]00:?00)$")
CLOCK = re.compile(r"^\d\d:\d\d:\d\d\.\d{9}$")
HEX = re.compile(r"^0x[0-9a-f]+$")
KEY = re.compile(r"^(\d+)(?:\.(\d+))?$")


class CheckError(Exception):
    """A failed check; its message is the one-line reason."""


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or "call_trees" not in doc or "metadata" not in doc:
        raise CheckError(f"{path}: no metadata/call_trees object")
    return doc


def walk_calls(calls):
    """Yields every call of a list of calls and of their children."""
    stack = list(reversed(calls))
    while stack:
        call = stack.pop()
        yield call
        stack.extend(reversed(call.get("children", [])))


def all_calls(doc):
    for tree in doc["call_trees"].values():
        yield from walk_calls(tree.get("calls", []))


def key_image(key):
    """The image number of a tree key: 1 for "123", k for "123.k"."""
    m = KEY.match(key)
    if not m:
        raise CheckError(f"tree key {key!r} is not <tid> or <tid>.<n>")
    return int(m.group(2) or 1)


# ---- rendering ---------------------------------------------------------------


def call_label(call):
    label = call["function"]
    if call.get("unfinished"):
        label += " [unfinished]"
    return label


def render_calls(calls, depth=0):
    """Lines of a list of sibling calls, runs of identical subtrees merged."""
    blocks = []
    for call in calls:
        block = [call_label(call)] + render_calls(call.get("children", []), 1)
        if blocks and blocks[-1][0] == block:
            blocks[-1][1] += 1
        else:
            blocks.append([block, 1])
    lines = []
    for block, count in blocks:
        head = block[0] + (f" [x{count}]" if count > 1 else "")
        lines.append("  " * depth + head)
        lines.extend("  " * depth + line for line in block[1:])
    return lines


def first_start(tree):
    calls = tree.get("calls", [])
    return calls[0]["start_ns"] if calls else float("inf")


def ordered_trees(doc):
    """(header, tree) pairs.  Processes are numbered by the start of their
    first call; images come in key order; a process's main thread (tid == pid)
    comes first, its other threads in the order of their text."""
    by_pid = defaultdict(list)
    for key, tree in doc["call_trees"].items():
        by_pid[tree["pid"]].append((key, tree))
    pids = sorted(by_pid, key=lambda p: min(first_start(t) for _, t in by_pid[p]))
    out = []
    for number, pid in enumerate(pids, 1):
        def order(item):
            key, tree = item
            main = tree["thread_id"] == tree["pid"]
            return (key_image(key), not main, "\n".join(render_calls(tree.get("calls", []))))

        for key, tree in sorted(by_pid[pid], key=order):
            image = key_image(key)
            role = "main" if tree["thread_id"] == tree["pid"] else "thread"
            where = f"process {number}" + (f" image {image}" if image > 1 else "")
            out.append((f"== {where} {role}", tree))
    return out


def render_all(doc):
    lines = []
    for header, tree in ordered_trees(doc):
        lines.append(header)
        lines.extend(render_calls(tree.get("calls", [])))
    return "\n".join(lines) + "\n"


# ---- schema ------------------------------------------------------------------


def need(cond, message):
    if not cond:
        raise CheckError(message)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def check_meta(meta, command):
    need(meta.get("version") == "1", f"metadata.version is {meta.get('version')!r}, not \"1\"")
    need(isinstance(meta.get("timestamp"), str) and ISO_UTC.match(meta["timestamp"]),
         f"metadata.timestamp {meta.get('timestamp')!r} is not ISO-8601 UTC")
    need(isinstance(meta.get("command"), str), "metadata.command is not a string")
    for field in ("total_calls", "threads", "processes"):
        need(is_int(meta.get(field)) and meta[field] >= 0,
             f"metadata.{field} is {meta.get(field)!r}, not a count")
    if command is not None:
        need(meta["command"] == command,
             f"metadata.command is {meta['command']!r}, expected {command!r}")


def check_call(call, files, where):
    name = call.get("function")
    need(isinstance(name, str) and name, f"{where}: call without a function name")
    where = f"{where} {name}"
    need(isinstance(call.get("address"), str) and HEX.match(call["address"]),
         f"{where}: address {call.get('address')!r} is not 0x<hex>")
    for field in ("start_ns", "end_ns", "duration_ns"):
        need(is_int(call.get(field)) and call[field] >= 0, f"{where}: {field} is {call.get(field)!r}")
    for field in ("start_time", "end_time"):
        need(isinstance(call.get(field), str) and CLOCK.match(call[field]),
             f"{where}: {field} {call.get(field)!r} is not HH:MM:SS.nnnnnnnnn")
    need(call["end_ns"] >= call["start_ns"], f"{where}: ends before it starts")
    need(call["duration_ns"] == call["end_ns"] - call["start_ns"],
         f"{where}: duration_ns != end_ns - start_ns")
    need(call.get("file") is None or isinstance(call["file"], str), f"{where}: file is not a string")
    need(is_int(call.get("line")) and call["line"] >= 0, f"{where}: line is {call.get('line')!r}")
    if call.get("file") is None:
        need(call["line"] == 0, f"{where}: a line without a file")
    if files:
        need(call.get("file") and call["line"] > 0, f"{where}: no file:line")
    need(call.get("unfinished", False) in (True, False), f"{where}: unfinished is not a boolean")
    need(call.get("entered_before", False) in (True, False),
         f"{where}: entered_before is not a boolean")
    need(isinstance(call.get("children"), list), f"{where}: children is not a list")
    check_siblings(call["children"], call, where)


def check_siblings(calls, parent, where):
    """Siblings follow each other in time, inside their parent's interval."""
    previous_end = parent["start_ns"] if parent else None
    for call in calls:
        if previous_end is not None and is_int(call.get("start_ns")):
            need(call["start_ns"] >= previous_end,
                 f"{where}: {call.get('function')} starts before its predecessor ends")
        if parent and is_int(call.get("end_ns")):
            need(call["end_ns"] <= parent["end_ns"],
                 f"{where}: {call.get('function')} ends after its caller")
        previous_end = call.get("end_ns")


def check_tree(key, tree, files):
    where = f"tree {key}"
    for field in ("thread_id", "pid", "image"):
        need(is_int(tree.get(field)), f"{where}: {field} is {tree.get(field)!r}")
    need(isinstance(tree.get("thread_name"), str), f"{where}: thread_name is not a string")
    need(KEY.match(key) and int(KEY.match(key).group(1)) == tree["thread_id"],
         f"{where}: key does not start with thread_id {tree['thread_id']}")
    need(isinstance(tree.get("calls"), list), f"{where}: calls is not a list")
    check_siblings(tree["calls"], None, where)
    for call in walk_calls(tree["calls"]):
        check_call(call, files, where)


def check_keys(doc):
    """"<tid>" for a thread's first image, "<tid>.2", ".3"... for later ones."""
    images = defaultdict(list)
    for key in doc["call_trees"]:
        tid = KEY.match(key).group(1)
        images[tid].append(key_image(key))
    for tid, numbers in images.items():
        need(sorted(numbers) == list(range(1, len(numbers) + 1)),
             f"tid {tid}: tree keys are not {tid}, {tid}.2, ...: images {sorted(numbers)}")


def check_schema(doc, command=None, total=False, files=False):
    check_meta(doc["metadata"], command)
    need(isinstance(doc["call_trees"], dict), "call_trees is not an object")
    for key, tree in doc["call_trees"].items():
        check_tree(key, tree, files)
    check_keys(doc)
    if total:
        n = sum(1 for _ in all_calls(doc))
        need(doc["metadata"]["total_calls"] == n,
             f"metadata.total_calls is {doc['metadata']['total_calls']}, the trees hold {n} calls")


# ---- file:line against nm and addr2line --------------------------------------


def run(argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def module_functions(module, demangle):
    """name -> file address of every function defined in the module."""
    argv = ["nm", "--defined-only"] + (["-C"] if demangle else []) + [module]
    functions = {}
    for line in run(argv).splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "TtWw":
            functions.setdefault(parts[2], int(parts[0], 16))
    return functions


def addr2line(module, addresses):
    """file address -> (file, line) as addr2line prints it."""
    out = run(["addr2line", "-e", module] + [hex(a) for a in addresses]).splitlines()
    result = {}
    for address, text in zip(addresses, out):
        text = re.sub(r" \(discriminator \d+\)$", "", text)
        file, _, line = text.rpartition(":")
        result[address] = (None if file == "??" else file, int(line) if line.isdigit() else 0)
    return result


def where_defined(modules, demangle):
    """function name -> [(module, file address)...] over all the modules."""
    found = defaultdict(list)
    for module in modules:
        for name, address in module_functions(module, demangle).items():
            found[name].append((module, address))
    return found


def check_lines(doc, modules, exact=(), keys=(), demangle=False):
    defined = where_defined(modules, demangle)
    wanted = defaultdict(set)
    uses = []
    for key in keys:
        need(key in doc["call_trees"], f"no tree {key}")
    for key, tree in doc["call_trees"].items():
        if keys and key not in keys:
            continue
        for call in walk_calls(tree.get("calls", [])):
            name = call["function"]
            need(name in defined, f"{name} (tree {key}) is in none of the modules")
            need(len(defined[name]) == 1,
                 f"{name} is defined in more than one module: {[m for m, _ in defined[name]]}")
            module, address = defined[name][0]
            wanted[module].add(address)
            uses.append((tree["pid"], key_image(key), call, module, address))
    lines = {m: addr2line(m, sorted(a)) for m, a in wanted.items()}
    biases = {}
    for pid, image, call, module, address in uses:
        name = call["function"]
        expect = lines[module][address]
        got = (call.get("file"), call.get("line"))
        need(got == expect, f"{name}: file:line {got[0]}:{got[1]}, addr2line says {expect[0]}:{expect[1]}")
        bias = int(call["address"], 16) - address
        if module in exact:
            need(bias == 0, f"{name}: address {call['address']} but nm says {hex(address)}")
        need(bias % 4096 == 0, f"{name}: address {call['address']} - {hex(address)} is not page-aligned")
        seen = biases.setdefault((pid, image, module), bias)
        need(seen == bias, f"{name}: load bias {hex(bias)} differs from {hex(seen)} in {module}")


# ---- command line --------------------------------------------------------------


def tree_lines(doc):
    lines = []
    for key, tree in doc["call_trees"].items():
        calls = tree.get("calls", [])
        root = calls[0]["function"] if calls else "-"
        lines.append(f"{key} {tree['pid']} {tree['thread_id']} {tree['image']} {root} {tree['thread_name']}")
    return "\n".join(lines) + "\n"


def report_columns(lines):
    """(index of the header line, end column of "Calls", start column of
    "Function") of a report whose columns are right-aligned under a header."""
    for i, line in enumerate(lines):
        calls = re.search(r"\bCalls\b", line, re.I)
        function = re.search(r"\bFunction\b", line, re.I)
        if calls and function and calls.end() < function.start():
            return i, calls.end(), function.start()
    raise CheckError("no header with Calls and Function columns in the report")


def report_calls(path, function):
    """The Calls column of FUNCTION's row in a report."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    header, calls_end, function_start = report_columns(lines)
    counts = []
    for line in lines[header + 1:]:
        if line[function_start:].strip() != function:
            continue
        cell = [m.group() for m in re.finditer(r"\S+", line) if m.end() == calls_end]
        need(cell and cell[0].isdigit(), f"report row of {function} has no count under Calls: {line!r}")
        counts.append(int(cell[0]))
    need(len(counts) == 1, f"{len(counts)} rows for {function} in the report")
    return counts[0]


REPLAY_LINE = re.compile(r"^[^|\[]*\[\s*(\d+)\] \| (.*)$")


def replay_display(call):
    function = call["function"]
    if call.get("kind") == "sched":
        return function
    return function if "(" in function else function + "()"


OFFCPU_LINE = re.compile(r"^/\* off-CPU: (\S+)(?: \(unfinished\))? \*/$")
# replay's marks of other kinds: "read@libc.so.6(", "[syscall] read("
LIBRARY_MARK = re.compile(r"^([^(@ ]+)@[^( ]+\(")


def replay_name(text):
    """A replay line's call as the JSON names it, without replay's marks."""
    if text.startswith("[syscall] "):
        text = text[len("[syscall] "):]
    return LIBRARY_MARK.sub(r"\1(", text)


def replay_entries(path):
    """tid -> [(depth, name)] of the calls the replay enters, in order."""
    entries = defaultdict(list)
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = REPLAY_LINE.match(line.rstrip("\n"))
            if not m:
                continue
            offcpu = OFFCPU_LINE.match(m.group(2).lstrip(" "))
            if offcpu:
                depth = (len(m.group(2)) - len(m.group(2).lstrip(" "))) // 2
                entries[m.group(1)].append((depth, "off-cpu:" + offcpu.group(1)))
                continue
            body = re.sub(r"(\s*/\*.*?\*/)+$", "", m.group(2))
            text = body.lstrip(" ")
            depth = (len(body) - len(text)) // 2
            if text.endswith(" {"):
                entries[m.group(1)].append((depth, replay_name(text[:-2])))
            elif text.endswith(";"):
                entries[m.group(1)].append((depth, replay_name(text[:-1])))
    return entries


def json_entries(doc):
    """tid -> [(depth, replay name)] of every call, images in order."""
    entries = defaultdict(list)
    for key in sorted(doc["call_trees"], key=lambda k: (int(KEY.match(k).group(1)), key_image(k))):
        tree = doc["call_trees"][key]

        def visit(calls, depth):
            for call in calls:
                entries[str(tree["thread_id"])].append((depth, replay_display(call)))
                visit(call.get("children", []), depth + 1)

        visit(tree.get("calls", []), 0)
    return entries


def check_replay_order(replay_path, doc):
    got, want = replay_entries(replay_path), json_entries(doc)
    need(sorted(got) == sorted(want), f"replay shows threads {sorted(got)}, the JSON {sorted(want)}")
    for tid in want:
        for i, (g, w) in enumerate(zip(got[tid], want[tid])):
            need(g == w, f"thread {tid}, call {i + 1}: replay shows {g[1]!r} at depth {g[0]}, "
                         f"the JSON {w[1]!r} at depth {w[0]}")
        need(len(got[tid]) == len(want[tid]),
             f"thread {tid}: replay shows {len(got[tid])} calls, the JSON {len(want[tid])}")


def option_values(args, option):
    """Every value of a repeatable option."""
    return [args[i + 1] for i, a in enumerate(args[:-1]) if a == option]


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[1], argv[3:]
    if command == "report-calls":
        print(report_calls(argv[2], rest[0]))
        return 0
    if command == "replay-order":
        check_replay_order(argv[2], load(argv[3]))
        return 0
    doc = load(argv[2])
    if command == "render":
        sys.stdout.write(render_all(doc))
    elif command == "trees":
        sys.stdout.write(tree_lines(doc))
    elif command == "meta":
        print(doc["metadata"][rest[0]])
    elif command == "count":
        calls = all_calls(doc)
        print(sum(1 for c in calls if not rest or c["function"] == rest[0]))
    elif command == "schema":
        cmd = (option_values(rest, "--command") or [None])[0]
        check_schema(doc, cmd, "--total" in rest, "--files" in rest)
    elif command == "lines":
        exact = option_values(rest, "--exact")
        keys = option_values(rest, "--key")
        modules = [a for i, a in enumerate(rest)
                   if not a.startswith("--") and (i == 0 or rest[i - 1] not in ("--exact", "--key"))]
        check_lines(doc, modules + exact, exact, keys, "--demangle" in rest)
    else:
        print(f"check_tree.py: unknown subcommand {command}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except CheckError as e:
        print(e, file=sys.stderr)
        sys.exit(1)
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        print(f"check_tree.py: {e}", file=sys.stderr)
        sys.exit(1)
