#!/usr/bin/env python3
"""check_ticks.py JSON TICKING TOCK_MAY_MISS - the shapes of a trace of a
tick_tock-like program (tests/programs/dynamic: every tick calls tock once)
recorded by an attach, from its `calltrace json`.

In every thread's tree: every finished tick has exactly one tock child;
tocks are found only there, but one at the thread's top level (the call it
was in when recording began); at most one tick is unfinished (the detach
came in it), with no child or its tock.  When the attach left a function
alone (TOCK_MAY_MISS > 0: a thread stood in its first bytes), a tick may
have no tock.  TICKING: how many threads tick 50 times or more ("N"), or
the least number of them ("N+").  Exits 1 with the first fault on stderr.
"""
import json
import sys


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def thread_counts(key, calls, tock_may_miss):
    n = {"ticks": 0, "tocks": 0, "unfinished": 0, "top_tocks": 0}

    def walk(calls, parent):
        for c in calls:
            kids = [k["function"] for k in c.get("children", [])]
            if c["function"] == "tick":
                n["ticks"] += 1
                if c.get("unfinished"):
                    n["unfinished"] += 1
                    if kids not in ([], ["tock"]):
                        fail(f"thread {key}: unfinished tick with children {kids}")
                elif kids != ["tock"] and not (tock_may_miss and kids == []):
                    fail(f"thread {key}: tick with children {kids}")
            elif c["function"] == "tock":
                n["tocks"] += 1
                if kids:
                    fail(f"thread {key}: tock with children {kids}")
                if parent is None:
                    n["top_tocks"] += 1
                elif parent != "tick":
                    fail(f"thread {key}: tock called from {parent}")
            walk(c.get("children", []), c["function"])

    walk(calls, None)
    return n


def main():
    doc = json.load(open(sys.argv[1]))
    want = sys.argv[2]
    tock_may_miss = int(sys.argv[3]) > 0
    ticking = 0
    for key, tree in doc["call_trees"].items():
        n = thread_counts(key, tree.get("calls", []), tock_may_miss)
        ticks, tocks, unfinished, top = n["ticks"], n["tocks"], n["unfinished"], n["top_tocks"]
        if top > 1 or unfinished > 1:
            fail(f"thread {key}: {top} tocks outside a tick, {unfinished} unfinished ticks")
        if (ticks - unfinished + top > tocks and not tock_may_miss) or tocks > ticks + top:
            fail(f"thread {key}: {ticks} ticks ({unfinished} unfinished) but {tocks} tocks")
        ticking += ticks >= 50
    least = want.endswith("+")
    want_n = int(want.rstrip("+"))
    if ticking < want_n or (not least and ticking != want_n):
        fail(f"{ticking} threads with 50 or more ticks, not {want}")


main()
