#!/usr/bin/env python3
"""args_check.py TRACE.json - the arguments and return values of
tests/programs/args/args_kinds.c's calls, exactly, in calltrace's JSON.

Every call of main's children must have the values the program passed;
-O2 programs may lose none of them (they are read at the real entry)."""
import json
import sys

# function -> list of (arguments as (name, value) pairs, return value)
EXPECTED = {
    "add_ints": [([("a", 40), ("b", 2)], 42)],
    "wide": [([("v", -1234567890123), ("u", 4000000000)], -1238567890123)],
    "small": [([("s", "\u00fb"), ("h", 60000)], "[")],
    "next_char": [([("c", "x")], "y")],
    "negate": [([("b", True)], False)],
    "shift": [([("c", "GREEN"), ("by", 1)], "BLUE"), ([("c", "BLUE"), ("by", 2)], "RED")],
    "scale": [([("f", 2.5), ("d", -0.75)], -1.875)],
    "measure": [([("s", 'tab\there "q"')], 12), ([("s", None)], 0), ([("s", "mapped")], 6)],
    # a pointer into no mapping; one into a page unmapped since it was read
    "peek": [([("s", "<unreadable 0x10>")], 16), ([("s", "UNREADABLE")], "ANY")],
    "pick": [([("a", "first"), ("b", "hello"), ("first", 0)], "hello")],
    "deref": [([("p", "POINTER")], 7)],
    "flip": [([("p", {"x": -3, "y": 4})], {"x": 4, "y": -3})],
    "area": [([("b", {"w": 1.5, "h": 2})], 3)],
    "make_big": [([("a", 10)], {"a": 10, "b": 11, "c": 12, "d": 13})],
    "as_int": [([("n", {"i": 99, "f": "ANY"})], 99)],
    "many": [([("a", 1), ("b", 2), ("c", 3), ("d", 4), ("e", 5), ("f", 6), ("g", 7),
               ("h", 8000000000)], 8000000028)],
    "sum_va": [([("n", 3)], 60)],
    "nothing": [([], None)],
    # the string as it was at the call: the program changes it afterwards
    "mutate": [([("buf", "hello"), ("at", 0)], None)],
}


def same(want, got):
    if want == "ANY":
        return True
    if want == "UNREADABLE":
        return isinstance(got, str) and got.startswith("<unreadable 0x")
    if want == "POINTER":
        return isinstance(got, str) and got.startswith("0x") and int(got, 16) != 0
    if isinstance(want, dict):
        return isinstance(got, dict) and all(same(v, got.get(k)) for k, v in want.items())
    if isinstance(want, bool) or isinstance(got, bool):
        return want is got
    return want == got


def main():
    doc = json.load(open(sys.argv[1]))
    calls = []
    for thread in doc["call_trees"].values():
        for top in thread["calls"]:
            if top["function"] == "main":
                calls = top["children"]
    seen = {}
    errors = []
    for c in calls:
        name = c["function"]
        if name not in EXPECTED:
            continue
        i = seen.get(name, 0)
        seen[name] = i + 1
        if i >= len(EXPECTED[name]):
            errors.append(f"{name}: called more often than expected")
            continue
        args, ret = EXPECTED[name][i]
        got_args = [(a["name"], a["value"]) for a in c.get("arguments", [])]
        if len(got_args) != len(args) or not all(
                n == gn and same(v, gv) for (n, v), (gn, gv) in zip(args, got_args)):
            errors.append(f"{name} #{i + 1}: arguments {got_args}, want {args}")
        got_ret = c.get("return_value")
        if ret is None:
            if got_ret is not None:
                errors.append(f"{name} #{i + 1}: a return value {got_ret} for a void function")
        elif got_ret is None or not same(ret, got_ret["value"]):
            errors.append(f"{name} #{i + 1}: return value {got_ret}, want {ret}")
    for name, want in EXPECTED.items():
        if seen.get(name, 0) != len(want):
            errors.append(f"{name}: {seen.get(name, 0)} calls, want {len(want)}")
    if errors:
        print("\n".join(errors))
        sys.exit(1)


main()
